package fsnode

import (
	"bytes"
	"encoding/json"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPNGView makes pictures of 2-D datasets (float with a NaN, uint16)
// and checks every pixel, decoded by Go's image/png and by PIL, against
// the values h5py wrote.
func TestPNGView(t *testing.T) {
	dir := t.TempDir()
	h5 := filepath.Join(dir, "img.h5")
	script := `
import sys, json, h5py, numpy as np
f = h5py.File(sys.argv[1], "w")
img = (np.arange(35, dtype="<f4") * 0.5).reshape(5, 7)
img[1, 2] = np.nan
f["img"] = img
f["u"] = np.arange(64, dtype=">u2").reshape(8, 8)
f.close()
print(json.dumps({"img": [[None if np.isnan(v) else float(v) for v in r] for r in img],
                  "u": [[int(v) for v in r] for r in np.arange(64).reshape(8, 8)]}))
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, h5).Output()
	if err != nil {
		t.Fatalf("h5py: %v", err)
	}
	var want map[string][][]*float64
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	tree := openTree(t, h5)
	for _, name := range []string{"img", "u"} {
		v, err := tree.Open(name + ".png")
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, v.Size())
		if n, _ := v.ReadAt(b, 0); n != len(b) {
			t.Fatalf("%s.png: read %d of %d bytes", name, n, len(b))
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s.png: %v", name, err)
		}
		vals := want[name]
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range vals {
			for _, x := range r {
				if x != nil {
					lo, hi = min(lo, *x), max(hi, *x)
				}
			}
		}
		var goPix [][4]uint32
		for y, r := range vals {
			for x, val := range r {
				cr, cg, cb, ca := img.At(x, y).RGBA()
				p := [4]uint32{cr >> 8, cg >> 8, cb >> 8, ca >> 8}
				goPix = append(goPix, p)
				want := [4]uint32{0, 0, 0, 0}
				if val != nil {
					g := uint32(math.Round(255 * (*val - lo) / (hi - lo)))
					want = [4]uint32{g, g, g, 255}
				}
				if p != want {
					t.Errorf("%s.png (%d,%d) = %v; value %v wants %v", name, x, y, p, val, want)
				}
			}
		}
		pil := pilPixels(t, filepath.Join(dir, name+".png"), b)
		for i := range goPix {
			// PIL premultiplies nothing: a transparent pixel's color is
			// whatever was stored; compare colors of opaque pixels only.
			if i >= len(pil) || pil[i][3] != goPix[i][3] || (goPix[i][3] != 0 && pil[i] != goPix[i]) {
				t.Fatalf("%s.png pixel %d: PIL %v, Go %v", name, i, pil[min(i, len(pil)-1)], goPix[i])
			}
		}
	}
}

// TestPNGKinds makes pictures of an RGB and an RGBA dataset, of a dataset
// with valid_min and valid_max, and the spy plot of an anndata CSR matrix
// of 5000 rows (binned by 3 rows); h5py writes them and numpy computes
// every pixel, which Go's image/png and PIL must both decode.
func TestPNGKinds(t *testing.T) {
	dir := t.TempDir()
	h5 := filepath.Join(dir, "kinds.h5")
	script := `
import sys, json, h5py, numpy as np
rng = np.random.default_rng(7)
f = h5py.File(sys.argv[1], "w")
want = {}
def scaled(v, lo, hi):
    return int(np.floor(255 * (v - lo) / (hi - lo) + 0.5))
rgb = rng.integers(3, 250, size=(4, 5, 3)).astype("u1")
f["rgb"] = rgb
lo, hi = float(rgb.min()), float(rgb.max())
want["rgb.png"] = [[[scaled(float(c), lo, hi) for c in px] + [255] for px in row] for row in rgb]
rgba = rng.random((3, 4, 4)).astype(">f4")
rgba[1, 2, 0] = np.nan
f["rgba"] = rgba
ok = rgba[~np.isnan(rgba)]
lo, hi = float(ok.min()), float(ok.max())
want["rgba.png"] = [[[0, 0, 0, 0] if np.isnan(px).any() else [scaled(float(c), lo, hi) for c in px] for px in row] for row in rgba]
v = np.arange(36, dtype="<f8").reshape(6, 6)
d = f.create_dataset("vrange", data=v)
d.attrs["valid_min"] = np.float32(5)
d.attrs["valid_max"] = np.float32(30)
want["vrange.png"] = [[[0, 0, 0, 0] if x < 5 or x > 30 else [scaled(x, 5, 30)] * 3 + [255] for x in row] for row in v]
rows, cols = 5000, 7
dense = rng.random((rows, cols)) < 0.02
g = f.create_group("sp")
g.attrs["encoding-type"] = "csr_matrix"
g.attrs["encoding-version"] = "0.1.0"
g.attrs["shape"] = np.array([rows, cols], dtype="i8")
indptr = np.concatenate([[0], np.cumsum(dense.sum(axis=1))]).astype("i8")
r, c = np.nonzero(dense)
g["indptr"] = indptr
g["indices"] = c.astype("i4")
g["data"] = np.ones(len(c), dtype="f4")
binned = np.zeros(((rows + 2) // 3, cols), dtype=bool)
binned[r // 3, c] = True
want["sp/pattern.png"] = [[[0, 0, 0, 255] if b else [255, 255, 255, 255] for b in row] for row in binned]
f.close()
print(json.dumps(want))
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, h5).Output()
	if err != nil {
		t.Fatalf("h5py: %v", err)
	}
	var want map[string][][][4]uint32
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	tree := openTree(t, h5)
	for name, rows := range want {
		v, err := tree.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, v.Size())
		if n, _ := v.ReadAt(b, 0); n != len(b) || !v.Exact() {
			t.Fatalf("%s: read %d of %d bytes (exact %v)", name, n, len(b), v.Exact())
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if sz := img.Bounds().Size(); sz.Y != len(rows) || sz.X != len(rows[0]) {
			t.Fatalf("%s: %v pixels, want %d×%d", name, sz, len(rows[0]), len(rows))
		}
		pil := pilPixels(t, filepath.Join(dir, "out.png"), b)
		bad := 0
		for y, r := range rows {
			for x, w := range r {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				p := [4]uint32{uint32(c.R), uint32(c.G), uint32(c.B), uint32(c.A)}
				q := pil[y*len(r)+x]
				if w[3] == 0 { // a transparent pixel has no color
					p, q, w = [4]uint32{0, 0, 0, p[3]}, [4]uint32{0, 0, 0, q[3]}, [4]uint32{}
				}
				if (p != w || q != w) && bad < 10 {
					bad++
					t.Errorf("%s (%d,%d): Go %v, PIL %v, want %v", name, x, y, p, q, w)
				}
			}
		}
	}
}

// pilPixels writes the PNG b to the file pf and returns its pixels, row
// by row, as PIL decodes them (RGBA, not premultiplied).
func pilPixels(t *testing.T, pf string, b []byte) [][4]uint32 {
	t.Helper()
	if err := os.WriteFile(pf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/usr/bin/python3", "-c",
		"import sys, json; from PIL import Image; im = Image.open(sys.argv[1]).convert('RGBA'); print(json.dumps(list(im.getdata())))", pf).Output()
	if err != nil {
		t.Fatalf("PIL (package python3-pil): %v", err)
	}
	var pil [][4]uint32
	if err := json.Unmarshal(out, &pil); err != nil {
		t.Fatal(err)
	}
	return pil
}
