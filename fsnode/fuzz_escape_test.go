package fsnode

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEscapeName: whatever a link name holds, its escaped form is one
// name of the mount (not empty, '.' or '..', no '/', no leading dot, no
// control byte, valid UTF-8) and unescapes back to it, so no two names
// share a form.
func FuzzEscapeName(f *testing.F) {
	for _, s := range []string{"", ".", "..", "/", "a/b/c", "%", "%2F", "\x1b[31mred", "new\nline", "\xff\xfebad", ".hidden", "_table", "é", "x:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := EscapeName(name)
		if got == "" || got == "." || got == ".." || strings.HasPrefix(got, ".") || strings.ContainsRune(got, '/') || !utf8.ValidString(got) {
			t.Fatalf("EscapeName(%q) = %q is no name the mount can show", name, got)
		}
		for i := 0; i < len(got); i++ {
			if got[i] < 0x20 || got[i] == 0x7f {
				t.Fatalf("EscapeName(%q) = %q holds control byte %#x", name, got, got[i])
			}
		}
		if name == "" {
			if got != "%" {
				t.Fatalf(`EscapeName("") = %q, want "%%"`, got)
			}
			return
		}
		if u, ok := unescape(got); !ok || u != name {
			t.Fatalf("EscapeName(%q) = %q unescapes to %q (%v)", name, got, u, ok)
		}
	})
}
