package fuse_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestPicturesMount reads pictures through the kernel mount: the
// pattern.png of every rank-2 structured-chunk sparse dataset of the
// sparse test files is black exactly where the fixture's expected COO
// (written by the independent writer) defines an element; a 2-D dataset
// with a non-zero fill value and never-written chunks shows those pixels
// transparent and the written ones scaled between the data's minimum and
// maximum. Each picture's size once opened is the bytes read, and PIL
// decodes it to the same pixels as Go's image/png.
func TestPicturesMount(t *testing.T) {
	files, _ := filepath.Glob("../../sparsecoo/testdata/*.h5")
	checked := 0
	for _, fn := range files {
		exp := readSparseExpected(t, fn)
		mp := fusetest.Mount(t, fn, nil)
		for _, ds := range exp.Datasets {
			if ds.Kind != "sparse" || len(ds.Shape) != 2 || ds.Shape[0] > 2048 || ds.Shape[1] > 2048 {
				continue
			}
			defined := map[[2]int]bool{}
			for _, e := range ds.COO {
				defined[[2]int{int(e[0]), int(e[1])}] = true
			}
			img := mountedPNG(t, filepath.Join(mp, ds.Name, "pattern.png"))
			if img == nil {
				continue
			}
			rows, cols := int(ds.Shape[0]), int(ds.Shape[1])
			if sz := img.Bounds().Size(); sz.X != cols || sz.Y != rows {
				t.Errorf("%s %s: pattern.png is %v, want %dx%d", fn, ds.Name, sz, cols, rows)
				continue
			}
			bad := 0
			for y := range rows {
				for x := range cols {
					c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
					want := color.NRGBA{255, 255, 255, 255}
					if defined[[2]int{y, x}] {
						want = color.NRGBA{0, 0, 0, 255}
					}
					if c != want && bad < 5 {
						bad++
						t.Errorf("%s %s: pattern.png (%d,%d) = %v, want %v", fn, ds.Name, x, y, c, want)
					}
				}
			}
			checked++
		}
	}
	if checked < 4 {
		t.Errorf("checked %d sparse spy plots; the sparse test files have more", checked)
	}

	// Fill as transparent: chunks of 2x2, the first two rows written
	// (values 10..17), the rest never written (fill -1).
	h5 := filepath.Join(t.TempDir(), "fill.h5")
	script := `
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    d = f.create_dataset("img", shape=(4, 4), dtype="<i2", chunks=(2, 2), fillvalue=-1)
    d[0:2, :] = np.arange(10, 18, dtype="<i2").reshape(2, 4)
`
	if out, err := exec.Command(python, "-c", script, h5).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	mp := fusetest.Mount(t, h5, nil)
	img := mountedPNG(t, filepath.Join(mp, "img.png"))
	if img == nil {
		return
	}
	for y := range 4 {
		for x := range 4 {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			if y >= 2 {
				if c.A != 0 {
					t.Errorf("img.png (%d,%d) = %v: a fill pixel, want transparent", x, y, c)
				}
				continue
			}
			v := uint8(math.Round(255 * float64(y*4+x) / 7)) // (v-10)/(17-10) scaled to 8 bits
			if want := (color.NRGBA{v, v, v, 255}); c != want {
				t.Errorf("img.png (%d,%d) = %v, want %v", x, y, c, want)
			}
		}
	}
}

// mountedPNG reads the picture at p through the mount, checks that its
// size once opened is what was read and that PIL decodes the same pixels
// as Go, and returns it (nil after an error).
func mountedPNG(t *testing.T, p string) image.Image {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		t.Errorf("%s: %v", p, err)
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Size() != int64(buf.Len()) {
		t.Errorf("%s: size %v (%v) once opened, %d bytes read", p, st.Size(), err, buf.Len())
	}
	img, err := png.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Errorf("%s: %v", p, err)
		return nil
	}
	out, err := exec.Command(python, "-c",
		"import sys, json; from PIL import Image; im = Image.open(sys.argv[1]).convert('RGBA'); print(json.dumps(list(im.getdata())))", p).Output()
	if err != nil {
		t.Errorf("PIL (python3-pil, from scripts/test.sh) on %s: %v", p, err)
		return img
	}
	var pil [][4]uint8
	if err := json.Unmarshal(out, &pil); err != nil {
		t.Fatal(err)
	}
	w := img.Bounds().Dx()
	for i, q := range pil {
		c := color.NRGBAModel.Convert(img.At(i%w, i/w)).(color.NRGBA)
		if c.A == 0 && q[3] == 0 {
			continue // a transparent pixel has no color
		}
		if [4]uint8{c.R, c.G, c.B, c.A} != q {
			t.Errorf("%s: pixel %d: Go %v, PIL %v", p, i, c, q)
			return img
		}
	}
	return img
}
