// Package differential holds the differential test across pmcheck's
// consumers (differential_test.go): `check`, the resume-gate hooks, `replay`
// and `watch` read one run through one engine, so over every fixture, the
// corpus and mutations of them they must say the same thing. The deliberate
// differences are the table in docs/architecture.md.
package differential
