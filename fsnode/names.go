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

// settleNames returns entries es, sorted by name, with every name taken
// once: a member one of whose names is already claimed (by a generated
// file, or by another member's file) is shown with all its names
// respelled (respell), with a log line; a name taken even so (which
// escaping makes impossible) is left out, with a log line. Claims are
// ordered by rank, and found by sorting rather than in maps of every
// name, which a directory of 900,000 files would hold twice over.
func (t *Tree) settleNames(es []entry) []entry {
	byClaim := func(a, b entry) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return cmp.Compare(a.rank(), b.rank())
	}
	slices.SortFunc(es, byClaim)
	clash := map[string]bool{}
	first := 0 // the first claim on es[i].name
	for i, e := range es {
		if i == 0 || e.name != es[i-1].name {
			first = i
			continue
		}
		if o := es[first]; e.isMember && (!o.isMember || o.member != e.member) {
			clash[e.member] = true
		}
	}
	if len(clash) > 0 {
		logged := map[string]bool{}
		for i, e := range es {
			if e.isMember && clash[e.member] {
				es[i].name = respell(e.member) + strings.TrimPrefix(e.name, EscapeName(e.member))
				if !logged[e.member] {
					logged[e.member] = true
					t.opt.Log.Printf("h5fs: %s: %q is shown as %q: its name %q is taken", t.f.Name(), e.member, es[i].name, e.name)
				}
			}
		}
		slices.SortFunc(es, byClaim)
	}
	out := es[:0]
	for _, e := range es {
		if len(out) > 0 && out[len(out)-1].name == e.name {
			t.opt.Log.Printf("h5fs: %s: name %q is taken; one object is not shown", t.f.Name(), e.name)
			continue
		}
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
