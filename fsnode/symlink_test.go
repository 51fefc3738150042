package fsnode

import (
	"fmt"
	"path"
	"strings"
	"testing"
)

func TestSoftTarget(t *testing.T) {
	for _, c := range []struct {
		depth  int
		target string
		want   string
	}{
		{0, "/a/b", "a/b"},
		{2, "/a", "../../a"},
		{1, "sib", "sib"},
		{1, "/", ".."},
		{0, "/", "."},
		{1, "/.dot", "../%2Edot"},
		{1, "/etc", "../etc"},
		{0, "x:/../../../etc/passwd", "x:/%2E./%2E./%2E./etc/passwd"},
		{3, "../../../../etc", "%2E./%2E./%2E./%2E./etc"},
		{0, "./a//b/.", "a/b"},
	} {
		got := softTarget(c.depth, c.target)
		if got != c.want {
			t.Errorf("softTarget(%d, %q) = %q, want %q", c.depth, c.target, got, c.want)
		}
		if !contained(c.depth, got) {
			t.Errorf("softTarget(%d, %q) = %q leaves the tree", c.depth, c.target, got)
		}
	}
	for _, c := range []struct {
		depth, anc int
		want       string
	}{{0, 0, "."}, {3, 0, "../../.."}, {3, 2, ".."}, {1, 5, "."}, {2, -1, "."}} {
		if got := upTarget(c.depth, c.anc); got != c.want {
			t.Errorf("upTarget(%d, %d) = %q, want %q", c.depth, c.anc, got, c.want)
		}
	}
}

// FuzzSymlinkContainment: whatever the HDF5 path and the directory's
// depth, a symbolic link computed for it stays inside the tree, and its
// names are the target's, escaped one to one.
func FuzzSymlinkContainment(f *testing.F) {
	for _, s := range []string{"/etc", "x:/../../etc/passwd", "a/b/c/d/e/f/g/h", "", "/", "..", "./.././", "\x00/%2F/\xff", "a%2Fb"} {
		f.Add(s, uint8(3), uint8(1))
	}
	f.Fuzz(func(t *testing.T, target string, depth, anc uint8) {
		d := int(depth % 64)
		got := softTarget(d, target)
		if !contained(d, got) {
			t.Fatalf("softTarget(%d, %q) = %q leaves the tree", d, target, got)
		}
		var want []string
		for _, p := range strings.Split(target, "/") {
			if p != "" && p != "." {
				want = append(want, p)
			}
		}
		var names []string
		for _, p := range strings.Split(got, "/") {
			if p != ".." && p != "." {
				names = append(names, p)
			}
		}
		if len(names) != len(want) {
			t.Fatalf("softTarget(%d, %q) = %q: names %q, want %q", d, target, got, names, want)
		}
		for i, n := range names {
			u, ok := unescape(n)
			if !ok || u != want[i] || EscapeName(want[i]) != n {
				t.Fatalf("softTarget(%d, %q) = %q: name %q is not %q escaped", d, target, got, n, want[i])
			}
		}
		if up := upTarget(d, int(anc%64)); !contained(d, up) {
			t.Fatalf("upTarget(%d, %d) = %q leaves the tree", d, anc, up)
		}
	})
}

// contained reports whether symbolic link target, in a directory at depth
// depth below the tree's root, resolves inside the tree, with every name
// one the mount can show.
func contained(depth int, target string) bool {
	if target == "" || strings.HasPrefix(target, "/") || path.Clean(target) != target {
		return false
	}
	at := depth
	for _, p := range strings.Split(target, "/") {
		switch p {
		case ".":
		case "..":
			if at--; at < 0 {
				return false
			}
		default:
			if strings.HasPrefix(p, ".") || strings.Contains(p, "/") {
				return false
			}
			at++
		}
	}
	return true
}

// unescape undoes EscapeName's %XX.
func unescape(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		hi, lo := strings.IndexByte(hexDigits, s[i+1]), strings.IndexByte(hexDigits, s[i+2])
		if hi < 0 || lo < 0 {
			return "", false
		}
		b.WriteByte(byte(hi<<4 | lo))
		i += 2
	}
	return b.String(), true
}

// FuzzRelTarget checks relTarget between two directories of a tree that
// share their first common levels: the link stays in the tree and,
// resolved from its directory, names the other one.
func FuzzRelTarget(f *testing.F) {
	f.Add(uint8(3), uint8(5), uint8(2))
	f.Add(uint8(0), uint8(0), uint8(0))
	f.Add(uint8(4), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, nFrom, nTo, nCommon uint8) {
		chain := func(up *dir, n int, name string) *dir {
			for i := range n {
				up = &dir{up: up, name: fmt.Sprintf("%s%d", name, i)}
			}
			return up
		}
		root := &dir{}
		common := chain(root, int(nCommon%16), "c")
		from, to := chain(common, int(nFrom%16), "f"), chain(common, int(nTo%16), "t")
		got := relTarget(from, to)
		depth := len(dirPath(from))
		if !contained(depth, got) {
			t.Fatalf("relTarget = %q leaves the tree from depth %d", got, depth)
		}
		path := dirPath(from)
		for _, p := range strings.Split(got, "/") {
			switch p {
			case "..":
				path = path[:len(path)-1]
			case ".":
			default:
				path = append(path, &dir{name: p})
			}
		}
		want := dirPath(to)
		if len(path) != len(want) {
			t.Fatalf("relTarget = %q: %d levels, want %d", got, len(path), len(want))
		}
		for i := range want {
			if path[i].name != want[i].name {
				t.Fatalf("relTarget = %q: level %d is %q, want %q", got, i, path[i].name, want[i].name)
			}
		}
	})
}
