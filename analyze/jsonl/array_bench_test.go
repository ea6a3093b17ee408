package jsonl

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// BenchmarkArrayReader reads an execution file's array (JSON.stringify's
// indented messages, strings with escapes) by its brackets, as the reader
// does without a Decode, and an array of scalars.
func BenchmarkArrayReader(b *testing.B) {
	var objects bytes.Buffer
	objects.WriteString("[\n")
	for i := range 2000 {
		if i > 0 {
			objects.WriteString(",\n")
		}
		fmt.Fprintf(&objects, "  {\n    \"type\": \"assistant\",\n    \"message\": {\n      \"role\": \"assistant\",\n      \"content\": [\n        {\n          \"type\": \"text\",\n          \"text\": \"step %d: ran \\\"go test ./...\\\" \\u2014 ok [%d] {braces} in a string\\n\"\n        }\n      ],\n      \"usage\": {\"input_tokens\": %d, \"output_tokens\": 12}\n    }\n  }", i, i, 1000+i)
	}
	objects.WriteString("\n]\n")
	var scalars bytes.Buffer
	scalars.WriteString("[")
	for i := range 20000 {
		if i > 0 {
			scalars.WriteString(", ")
		}
		fmt.Fprintf(&scalars, "%d, \"s%d\", true", i, i)
	}
	scalars.WriteString("]")
	for _, c := range []struct {
		name string
		data []byte
	}{{"objects", objects.Bytes()}, {"scalars", scalars.Bytes()}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				a := NewArrayReader(bytes.NewReader(c.data), 0)
				for {
					if _, err := a.Next(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
