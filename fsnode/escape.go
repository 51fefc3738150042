package fsnode

import (
	"strings"
	"unicode/utf8"
)

// EscapeName turns an HDF5 link name into the file name the mount shows.
// Names are shown as they are unless they could be misread: a leading dot
// (".", "..", hidden files, and so never clashing with ".meta.json"), '/',
// '%', control bytes, DEL and bytes that are not UTF-8 are written as %XX.
// The empty name, which no directory can hold, is shown as "%" (which
// escaping never makes otherwise, as it writes '%' as %25). The mapping
// is one to one, and its results are never "", "." or "..", nor hold '/'.
func EscapeName(name string) string {
	if name == "" {
		return "%"
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		c := name[i]
		if (r == utf8.RuneError && n == 1) || c < 0x20 || c == 0x7f || c == '%' || c == '/' || (i == 0 && c == '.') {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
			i++
			continue
		}
		b.WriteString(name[i : i+n])
		i += n
	}
	return b.String()
}

const hexDigits = "0123456789ABCDEF"
