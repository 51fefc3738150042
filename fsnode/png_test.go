package fsnode

import (
	"bytes"
	"encoding/json"
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
		pf := filepath.Join(dir, name+".png")
		os.WriteFile(pf, b, 0o644)
		out, err := exec.Command("/usr/bin/python3", "-c",
			"import sys, json; from PIL import Image; im = Image.open(sys.argv[1]).convert('RGBA'); print(json.dumps(list(im.getdata())))", pf).Output()
		if err != nil {
			t.Fatalf("PIL (package python3-pil): %v", err)
		}
		var pil [][4]uint32
		json.Unmarshal(out, &pil)
		for i := range goPix {
			// PIL premultiplies nothing: a transparent pixel's color is
			// whatever was stored; compare colors of opaque pixels only.
			if i >= len(pil) || pil[i][3] != goPix[i][3] || (goPix[i][3] != 0 && pil[i] != goPix[i]) {
				t.Fatalf("%s.png pixel %d: PIL %v, Go %v", name, i, pil[min(i, len(pil)-1)], goPix[i])
			}
		}
	}
}
