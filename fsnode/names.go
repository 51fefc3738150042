package fsnode

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// named marks entries es as showing member name: those whose names start
// with EscapeName(name) can be respelled if their names are taken.
func named(es []entry, name string) []entry {
	stem := EscapeName(name)
	for i := range es {
		if strings.HasPrefix(es[i].name, stem) {
			es[i].member, es[i].isMember = name, true
		}
	}
	return es
}

// rank orders claims on a name: generated names (.meta.json, the root
// table's _table.csv, a sparse matrix's coo.csv) first, then a member's
// files (name.csv for member name), then a member shown under its own name
// (a group's directory, a symbolic link). A later claim never hides an
// earlier one: its member is respelled instead.
func (e entry) rank() int {
	switch {
	case !e.isMember:
		return 0
	case e.name != EscapeName(e.member):
		return 1
	}
	return 2
}

// settleNames returns entries es with every name taken once: a member
// one of whose names is already claimed (by a generated file, or by
// another member's file) is shown with all its names respelled (respell),
// with a log line; a name taken even so (which escaping makes impossible)
// is left out, with a log line.
func (t *Tree) settleNames(es []entry) []entry {
	slices.SortStableFunc(es, func(a, b entry) int { return cmp.Compare(a.rank(), b.rank()) })
	owner := make(map[string]int, len(es)) // name -> index of its first claim
	clash := map[string]bool{}
	for i, e := range es {
		j, ok := owner[e.name]
		switch {
		case !ok:
			owner[e.name] = i
		case e.isMember && (!es[j].isMember || es[j].member != e.member):
			clash[e.member] = true
		}
	}
	out := es[:0]
	taken := make(map[string]bool, len(es))
	logged := map[string]bool{}
	for _, e := range es {
		if e.isMember && clash[e.member] {
			was := e.name
			e.name = respell(e.member) + strings.TrimPrefix(e.name, EscapeName(e.member))
			if !logged[e.member] {
				logged[e.member] = true
				t.opt.Log.Printf("h5fs: %s: %q is shown as %q: its name %q is taken", t.f.Name(), e.member, e.name, was)
			}
		}
		if taken[e.name] {
			t.opt.Log.Printf("h5fs: %s: name %q is taken; one object is not shown", t.f.Name(), e.name)
			continue
		}
		taken[e.name] = true
		out = append(out, e)
	}
	return out
}

// respell is a second spelling of EscapeName(name): the same, with the
// first character EscapeName leaves as it is written as %XX too ("_table"
// is "%5Ftable"). EscapeName never writes such a character as %XX, so the
// respelling is no other member's name, and it still unescapes to name.
func respell(name string) string {
	esc := EscapeName(name)
	for i := 0; i < len(esc); {
		if esc[i] == '%' {
			i += 3
			continue
		}
		_, n := utf8.DecodeRuneInString(esc[i:])
		var b strings.Builder
		b.WriteString(esc[:i])
		for _, c := range []byte(esc[i : i+n]) {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
		b.WriteString(esc[i+n:])
		return b.String()
	}
	return esc
}
