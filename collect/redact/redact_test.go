package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Fake secrets are assembled at run time so this file holds no literal that
// a secret scanner would report.
var (
	awsKey    = "AKIA" + "Z7QXW2LMNB4KJ5TR"
	gcpKey    = "AIza" + "SyB3x9Qk2LmN7pR4tV8wY1zC6dF0gH5jK-_"
	githubPAT = "ghp_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3z5A"
	gitlabPAT = "glpat-" + "xY7kP2mQ9rT4vW8nB3cD"
	slackBot  = "xoxb-" + "1234567890-1234567890123-" + "aBcDeFgHiJkLmNoPqRsTuVwX"
	npmToken  = "npm_" + "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8"
	jwtToken  = "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJ" + "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ" + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	privKey   = "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END " + "RSA PRIVATE KEY-----"
)

func newRedactor(t *testing.T, values ...string) *Redactor {
	t.Helper()
	r, err := New(values)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestEveryPatternClass: one example of each class of secret is replaced by
// its labelled marker, and the text around it stays.
func TestEveryPatternClass(t *testing.T) {
	r := newRedactor(t, "corp-internal-hostname-42")
	cases := []struct {
		class, text, label, secret string
	}{
		{"cloud key (AWS)", "aws configure set aws_access_key_id " + awsKey + " done", "aws-access-token", awsKey},
		{"cloud key (GCP)", "curl 'https://x.googleapis.com/v1?key=" + gcpKey + "'", "gcp-api-key", gcpKey},
		{"GitHub token", "git remote set-url origin x; echo " + githubPAT + " | gh auth login --with-token", "github-pat", githubPAT},
		{"GitLab token", "token: " + gitlabPAT + " ok", "gitlab-pat", gitlabPAT},
		{"Slack token", "SLACK " + slackBot + " posted", "slack-bot-token", slackBot},
		{"npm token", "//registry.npmjs.org/:_authToken=" + npmToken + "\n", "npm-access-token", npmToken},
		{"private key block", "cat id_rsa\n" + privKey + "\n$ ls", "private-key", "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"},
		{"JWT", "Authorization: Bearer " + jwtToken + " ", "jwt", "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"},
		{"URL with a password", "git clone https://deploy:Hunter2Pass@git.example.com/app.git", LabelURLPassword, "Hunter2Pass"},
		{"KEY=value of a secret-looking name", "export DB_PASSWORD=hunter2hunter && make", LabelAssignment, "hunter2hunter"},
		{"KEY: value in a .env dump", "SMTP_PASS: mailpass01\n", LabelAssignment, "mailpass01"},
		{"user-listed value", "connecting to corp-internal-hostname-42:5432", LabelUserValue, "corp-internal-hostname-42"},
	}
	for _, c := range cases {
		got, counts := r.String(c.text, "")
		if strings.Contains(got, c.secret) {
			t.Errorf("%s: secret survived: %q", c.class, got)
		}
		if !strings.Contains(got, Marker(c.label)) {
			t.Errorf("%s: no %s marker in %q (counts %v)", c.class, Marker(c.label), got, counts)
		}
		if counts[c.label] == 0 {
			t.Errorf("%s: counts %v lack %s", c.class, counts, c.label)
		}
	}
}

// TestNearMissesStay: text that looks like a secret but is not is left alone.
func TestNearMissesStay(t *testing.T) {
	r := newRedactor(t)
	for _, text := range []string{
		"ghp_" + "short123",
		"https://github.com/pmcheck/pmcheck.git",
		"git@github.com:pmcheck/pmcheck.git",
		"http://localhost:8080/path@v1",
		"ssh://git@github.com/org/repo",
		"MAX_TOKENS=4096",
		"PASSWORD_FILE=/run/secrets/db",
		"GITHUB_TOKEN=$GITHUB_TOKEN",
		"TOKEN=${{ secrets.TOKEN }}",
		"PASSWORD=********",
		"AWS_ACCESS_KEY_ID=",
		"max_tokens=4096 and input_tokens: 1200",
		"commit 3b512ba1c8e2f4d6a7b9c0e1f2a3b4c5d6e7f8a9 on main",
		"sessionId 50000000-0000-4000-8000-000000000001",
		"agentId: a5000000000000011",
		"-----BEGIN " + "PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
		"the token was rotated; see docs/secrets.md",
		"eyJhbGciOiJ is a JWT header prefix",
		"<task-notification><task-id>a1</task-id><status>completed</status></task-notification>",
	} {
		if got, c := r.String(text, ""); got != text || len(c) > 0 {
			t.Errorf("near miss changed: %q -> %q (%v)", text, got, c)
		}
	}
	for field, value := range map[string]string{"input_tokens": "1200", "tokens": "many tokens here", "token_count": "12345678", "password_file": "/etc/pw/file"} {
		if got, c := r.String(value, field); got != value || len(c) > 0 {
			t.Errorf("field %s=%q changed to %q", field, value, got)
		}
	}
}

// TestSecretFieldByName: a JSON field named like a secret has its value replaced.
func TestSecretFieldByName(t *testing.T) {
	r := newRedactor(t)
	line := []byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"api_key":"abcd1234efgh5678","retries":3}}]}}`)
	out, c := r.Line(line)
	if bytes.Contains(out, []byte("abcd1234efgh5678")) || c[LabelField] != 1 {
		t.Fatalf("api_key field not redacted: %s (%v)", out, c)
	}
	if !json.Valid(out) {
		t.Fatalf("redacted line is not JSON: %s", out)
	}
}

// TestLineKeepsJSONAndUntouchedBytes: only the string that held a secret is
// rewritten; escaping elsewhere (\u003c, \/) stays byte for byte, and the
// result is valid JSON with the same structure.
func TestLineKeepsJSONAndUntouchedBytes(t *testing.T) {
	r := newRedactor(t)
	prefix := `{"type":"user","uuid":"u1","message":{"content":"a \u003cb\u003e c\/d"},"toolUseResult":{"stdout":"`
	line := []byte(prefix + `export GITHUB_TOKEN=` + githubPAT + `\nok \"quoted\"","x":1}}`)
	out, c := r.Line(line)
	if c.Total() != 1 {
		t.Fatalf("counts %v, want one redaction", c)
	}
	if !bytes.HasPrefix(out, []byte(prefix)) {
		t.Fatalf("bytes before the redacted string changed:\n%s", out)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("not JSON after redaction: %v\n%s", err, out)
	}
	stdout := v["toolUseResult"].(map[string]any)["stdout"].(string)
	if stdout != "export GITHUB_TOKEN="+Marker("github-pat")+"\nok \"quoted\"" {
		t.Fatalf("stdout = %q", stdout)
	}
}

// TestNotificationStructureSurvives: a secret inside a task notification is
// replaced and every element of the notification stays.
func TestNotificationStructureSurvives(t *testing.T) {
	r := newRedactor(t)
	n := "<task-notification>\n<task-id>a123</task-id>\n<status>completed</status>\n<summary>done</summary>\n<result>pushed with " + githubPAT + "</result>\n</task-notification>"
	line, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"content": n}})
	out, c := r.Line(line)
	if c["github-pat"] != 1 {
		t.Fatalf("counts %v", c)
	}
	var v struct {
		Message struct{ Content string } `json:"message"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(n, githubPAT, Marker("github-pat"), 1)
	if v.Message.Content != want {
		t.Fatalf("notification changed beyond the secret:\n%s\nwant\n%s", v.Message.Content, want)
	}
}

// TestStreamKeepsLineEndingsAndCounts: CRLF, a torn last line and a non-JSON
// line are copied exactly, apart from the secrets.
func TestStreamKeepsLineEndingsAndCounts(t *testing.T) {
	r := newRedactor(t)
	in := "{\"a\":\"x\"}\r\nnot json " + githubPAT + "\n\n{\"b\":\"" + npmToken + "\"}"
	var out bytes.Buffer
	c, err := r.Stream(&out, strings.NewReader(in), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"a\":\"x\"}\r\nnot json " + Marker("github-pat") + "\n\n{\"b\":\"" + Marker("npm-access-token") + "\"}"
	if out.String() != want || c.Total() != 2 {
		t.Fatalf("got %q (%v)\nwant %q", out.String(), c, want)
	}
	if _, err := r.Stream(&bytes.Buffer{}, strings.NewReader(strings.Repeat("x", 100)+"\n"), 50); err == nil {
		t.Fatal("a line over the cap was copied unscanned")
	}
}

func TestShortUserValueIsRefused(t *testing.T) {
	if _, err := New([]string{"abc"}); err == nil {
		t.Fatal("a 3-character value was accepted")
	}
}

func BenchmarkLine(b *testing.B) {
	r, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("ordinary tool output with paths /a/b/c and words like token and key ", 200)
	line, _ := json.Marshal(map[string]any{"type": "user", "toolUseResult": map[string]any{"stdout": text}})
	b.SetBytes(int64(len(line)))
	for i := 0; i < b.N; i++ {
		r.Line(line)
	}
}

// BenchmarkLongSparseOutput: a 1 MB tool output with few keywords.
func BenchmarkLongSparseOutput(b *testing.B) {
	r, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	chunk := strings.Repeat("plain build log line with nothing secret in it at all /usr/lib/x.so\n", 960)
	text := strings.Repeat(chunk+"set the token here\n", 16)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		r.String(text, "")
	}
}
