package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestPrintName(t *testing.T) {
	for in, want := range map[string]string{
		"plain":          "plain",
		"Größe µm":       "Größe µm",
		"\x1b[31mred":    `\033[31mred`,
		"new\nline\tx\r": `new\nline\tx\r`,
		"\xff\xfe":       `\377\376`,
		"back\\slash":    `back\\slash`,
		"c1\u009b2J":     `c1\302\2332J`,
		"del\x7f":        `del\177`,
	} {
		if got := printName(in); got != want {
			t.Errorf("printName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := printable(`"a\"b"` + "\x1b"); got != `"a\"b"\033` {
		t.Errorf("printable kept backslashes as %q", got)
	}
}

// TestLsEscapes: `h5fs ls` prints a name holding a tab escaped, on one
// line.
func TestLsEscapes(t *testing.T) {
	var b bytes.Buffer
	if err := runLs([]string{"../../fsnode/testdata/names.h5"}, &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `/tab\there `) || strings.Contains(b.String(), "\t") {
		t.Errorf("ls output:\n%s", b.String())
	}
}

// TestDumpEscapes: `h5fs dump` prints a path holding a tab escaped, on
// one line.
func TestDumpEscapes(t *testing.T) {
	var b bytes.Buffer
	if err := runDump([]string{"../../fsnode/testdata/names.h5", "/tab\there"}, &b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), `DATASET "/tab\there" {`+"\n") || strings.Contains(b.String(), "\t") {
		t.Errorf("dump output:\n%s", b.String())
	}
}
