package shell

// What the external tests (nesting_test.go, which classifies with the
// ship package) reach inside the package.

// ScanNesting is scanNesting: nestingBound without the shortcut for short
// lines.
var ScanNesting = scanNesting

// NestingBound is nestingBound.
var NestingBound = nestingBound

// SetParsing sets the hook told each script handed to the parser (nil:
// none).
func SetParsing(f func(src string)) { parsing = f }
