package shell

import "strings"

// EchoOutput is what echo prints for args. Its escapes are decoded unless
// -E says not to: bash's echo decodes them only with -e, but zsh's and
// dash's always do, and reading them decoded fails toward reporting.
func EchoOutput(args []string) string {
	newline, decode := true, true
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "neE") != "" {
			break
		}
		for _, f := range a[1:] {
			switch f {
			case 'n':
				newline = false
			case 'e':
				decode = true
			case 'E':
				decode = false
			}
		}
	}
	text := strings.Join(args[i:], " ")
	if decode {
		out, stop := decodeEscapes(text, escEcho)
		if stop {
			return out // \c: nothing more, not even the newline
		}
		text = out
	}
	if newline {
		text += "\n"
	}
	return text
}

// PrintfOutput is what printf prints for args: the format's escapes
// decoded, %s and %b replaced by arguments (%b's escapes decoded), %% by
// %, the format reused while arguments remain. ok is false for an option
// (-v), another directive, or an output longer than limit.
func PrintfOutput(args []string, limit int) (string, bool) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", false
	}
	format, args := args[0], args[1:]
	var b strings.Builder
	for {
		used := 0
		for i := 0; i < len(format); {
			switch format[i] {
			case '\\':
				i, _ = escapeAt(&b, format, i, escFormat)
			case '%':
				if i+1 >= len(format) {
					return "", false
				}
				switch d := format[i+1]; d {
				case '%':
					b.WriteByte('%')
				case 's', 'b':
					arg := ""
					if len(args) > 0 {
						arg, args = args[0], args[1:]
						used++
					}
					if d == 's' {
						b.WriteString(arg)
						break
					}
					out, stop := decodeEscapes(arg, escEcho)
					b.WriteString(out)
					if stop {
						return b.String(), b.Len() <= limit
					}
				default:
					return "", false
				}
				i += 2
			default:
				b.WriteByte(format[i])
				i++
			}
			if b.Len() > limit {
				return "", false
			}
		}
		if used == 0 || len(args) == 0 {
			return b.String(), true
		}
	}
}
