package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printName returns a name from a file as `ls -b` would print it: control
// characters and other non-printing ones (terminal escape sequences
// included), bytes that are not UTF-8, and the backslash written as C
// escapes (\n, \t, \033, \\), so that no file can drive the terminal it
// is listed on, and the name stays on one line.
func printName(s string) string { return escapeControls(s, true) }

// printable returns text from a file (a value, an error naming objects)
// with its non-printing characters written as C escapes, as printName
// does; backslashes stay as they are (values are quoted already).
func printable(s string) string { return escapeControls(s, false) }

func escapeControls(s string, backslash bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' || backslash && r == '\\' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\' && backslash:
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError && n == 1, !unicode.IsPrint(r) && r != ' ':
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, `\%03o`, c)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
