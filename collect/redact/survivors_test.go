package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Planted values of real shapes, assembled at run time so no literal here
// is a token a scanner would report.
var (
	oauthAccess  = "sk-ant-" + "oat01-" + "Xq3vN8bK2mLp9RtY4wZc7FhJ1sDg6AeU0iOo5PaQ-rT_yHnMb8VcXz2KjLq4WeRt6YuIo9PaSdFgHjKlZxCvBnM1qW3eR5tY7uI9oPAA"
	oauthRefresh = "sk-ant-" + "ort01-" + "Lk9Jh8Gf7Ds6Aq5Wz4Xe3Rc2Tv1Yb0Nu9Mi8Ko7Lp6Qa5Zs4Xd3Cf2Vg1Bh0Nj9Mk8Lo7Pq6Wa5Se4Dr3Ft2Gy1Hu0Ji9Ko8LpAA"
	projKey      = "sk-" + "proj-" + "Rz8Kq2Wm5Xn9Bv4Ct7Yh1Jd6Fg3Lp0Ae8Si2Uo5Qw7Er9Ty1Ui3Op5As7Df9Gh1Jk3Lz5Xc7Vb9Nm2Qw4Er6Ty8Ui0Op2As4Df6Gh8Jk0Lz2Xc4Vb6Nm8Qw0Er2Ty4Ui6Op8As0Df2Gh4Jk6Lz8Xc0Vb2Nm4Qw6Er8Ty0Ui2Op4As6Df8Gh0Jk2Lz4Xc6Vb8Nm0"
	awsDigits    = "AKIA" + "Z7QX8W1LMNB09KJT"
	stripeLive   = "sk_" + "live_" + "51HxQ2eKLm9Np0Rt7VwYz3Ab"
	anthropicAPI = "sk-ant-" + "api03-" + strings.Repeat("Ab3dE5fG7h", 9) + "Xy9" + "AA"
	keyBody      = []string{"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun", "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK"}
)

// TestSecretsThatSurvived (issue 29, item 15): every family of secret that
// survived redaction is replaced, each planted in the shape it takes in a
// transcript or sidecar, and the text around it stays.
func TestSecretsThatSurvived(t *testing.T) {
	r := newRedactor(t)
	text := []struct {
		family, text string
		secrets      []string
	}{
		{"Claude Code OAuth access token", "claude setup-token printed " + oauthAccess + " for CI", []string{oauthAccess[14:]}},
		{"Claude Code OAuth refresh token", "refresh with " + oauthRefresh + " later", []string{oauthRefresh[14:]}},
		{"OpenAI project key without the T3BlbkFJ marker", "OPENAI key " + projKey + " set", []string{projKey[10:]}},
		{"AWS key id with 0, 1, 8, 9", "aws_access_key_id " + awsDigits + " in the profile", []string{awsDigits}},
		{"lower-case password=", "mysql_config password=hunter2hunter host=db", []string{"hunter2hunter"}},
		{"db_password=", "export db_password=s3cr3tPassW0rd && run", []string{"s3cr3tPassW0rd"}},
		{"api_token=", "curl -d api_token=tok9f8e7d6c5b4a3 https://x", []string{"tok9f8e7d6c5b4a3"}},
		{"password: (YAML)", "database:\n  password: Sup3rS3cret!x\n  user: app", []string{"Sup3rS3cret!x"}},
		{`{"password": "…"} in text`, `config is {"user": "app", "password": "hunter2!xyz"} ok`, []string{"hunter2!xyz"}},
		{"mysql -pSECRET", "mysql -u root -pS3cretPw9 -h db appdb < dump.sql", []string{"S3cretPw9"}},
		{"stripe key followed by &", "https://api.example/x?key=" + stripeLive + "&mode=1", []string{stripeLive}},
		{"JWT followed by &", "https://app.example/cb?id_token=" + jwtToken + "&state=x", []string{"SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"}},
		{"API key followed by ,", "keys = [" + anthropicAPI + ", other]", []string{anthropicAPI[14:]}},
		{"API key followed by )", "client(" + anthropicAPI + ")", []string{anthropicAPI[14:]}},
		{"URL password with an empty user", "REDIS_URL redis://:pw0rdXyz9@cache:6379/0", []string{"pw0rdXyz9"}},
		{"URL password holding @", "git clone https://deploy:p@ss@w0rd9@git.example.com/app.git", []string{"p@ss@w0rd9", "ss@w0rd9"}},
	}
	for _, c := range text {
		got, counts := r.String(c.text, "")
		for _, sec := range c.secrets {
			if strings.Contains(got, sec) {
				t.Errorf("%s: survived in %q (%v)", c.family, got, counts)
			}
		}
		if counts.Total() == 0 {
			t.Errorf("%s: nothing counted", c.family)
		}
	}

	// Private-key lines one per JSON string: an Edit's structuredPatch.
	patch, _ := json.Marshal(map[string]any{"type": "user", "toolUseResult": map[string]any{"filePath": "id_rsa",
		"structuredPatch": []any{map[string]any{"oldStart": 1, "oldLines": 0, "newStart": 1, "newLines": 4, "lines": []string{
			"+-----BEGIN " + "RSA PRIVATE KEY-----", "+" + keyBody[0], "+" + keyBody[1], "+-----END " + "RSA PRIVATE KEY-----", " unchanged line"}}}}})
	out, counts := r.Line(patch)
	for _, b := range keyBody {
		if bytes.Contains(out, []byte(b)) {
			t.Errorf("private-key body line survived in a structuredPatch: %s", out)
		}
	}
	if !json.Valid(out) || !bytes.Contains(out, []byte(`" unchanged line"`)) || !bytes.Contains(out, []byte("-----END ")) || counts["private-key"] != 2 {
		t.Errorf("structuredPatch after redaction (%v): %s", counts, out)
	}

	// A secret used as a JSON object key.
	line := []byte(`{"type":"user","toolUseResult":{"tokens":{"` + githubPAT + `":true},"n":1}}`)
	out, _ = r.Line(line)
	if bytes.Contains(out, []byte(githubPAT)) || !json.Valid(out) {
		t.Errorf("a secret as a JSON key survived: %s", out)
	}

	// A pretty-printed sidecar with \u escapes and a key block over lines.
	escaped := strings.Replace(githubPAT, "g", `\u0067`, 1)
	sidecar := "{\n  \"description\": \"push with " + escaped + "\",\n  \"note\": \"use " + oauthAccess + "\",\n  \"key\": [\n    \"-----BEGIN " + "OPENSSH PRIVATE KEY-----\",\n    \"" + keyBody[0] + "\",\n    \"-----END " + "OPENSSH PRIVATE KEY-----\"\n  ],\n  \"agentType\": \"general-purpose\"\n}\n"
	var buf bytes.Buffer
	if _, err := r.Stream(&buf, strings.NewReader(sidecar), 1<<20); err != nil {
		t.Fatal(err)
	}
	for _, sec := range []string{githubPAT[4:], escaped, oauthAccess[14:], keyBody[0]} {
		if strings.Contains(buf.String(), sec) {
			t.Errorf("pretty-printed sidecar: %q survived:\n%s", sec, buf.String())
		}
	}
	var v map[string]any
	if err := json.Unmarshal(buf.Bytes(), &v); err != nil || v["agentType"] != "general-purpose" {
		t.Errorf("the sidecar is no longer the same JSON (%v):\n%s", err, buf.String())
	}
}

// TestNearMissesOfTheNewRules: what the new rules must leave alone.
func TestNearMissesOfTheNewRules(t *testing.T) {
	r := newRedactor(t)
	for _, text := range []string{
		"AKIAIOSFODNN7EXAMPLE is AWS's documented example id",
		"password=$DB_PASSWORD and password: ${{ secrets.DB }}",
		"password_file=/run/secrets/db and token_count=1200",
		"mysql -u root -h db -P 3306 appdb",
		"https://github.com/org/repo.git and ssh://git@github.com/org/repo",
		`{"max_tokens": 4096, "input_tokens": 1200}`,
		"the header is -----BEGIN " + "RSA PRIVATE KEY----- then the body",
	} {
		if got, c := r.String(text, ""); got != text || len(c) > 0 {
			t.Errorf("near miss changed: %q -> %q (%v)", text, got, c)
		}
	}
	// A key marker quoted in prose, in one row, leaves the row's other
	// strings alone, and the next row starts clean.
	var buf bytes.Buffer
	rows := `{"type":"assistant","message":{"content":[{"type":"text","text":"files start with -----BEGIN ` + `RSA PRIVATE KEY-----"},{"type":"tool_use","name":"Bash","input":{"command":"git push origin main"}}]}}` + "\n" +
		`{"type":"user","message":{"content":"ok thanks"}}` + "\n"
	if _, err := r.Stream(&buf, strings.NewReader(rows), 1<<20); err != nil {
		t.Fatal(err)
	}
	if buf.String() != rows {
		t.Errorf("a quoted key marker changed other strings:\n%s", buf.String())
	}
}

// TestGitleaksTerminatorIsWidened: the rule set is used with '&', ',' and
// ')' accepted after a token, in every rule that ends with gitleaks' usual
// terminator.
func TestGitleaksTerminatorIsWidened(t *testing.T) {
	n := strings.Count(string(gitleaksTOML), gitleaksTerminator)
	if n < 100 {
		t.Fatalf("gitleaks' terminator found %d times in the rule set: the constant no longer matches the file", n)
	}
	if w := widenTerminator(gitleaksTerminator); w == gitleaksTerminator || !strings.Contains(w, "&,)") {
		t.Fatalf("widened terminator %q", w)
	}
}
