package h5core

import (
	"fmt"
	"path/filepath"
	"testing"
)

func TestZZSmoke(t *testing.T) {
	files, _ := filepath.Glob("../../shared/fixtures/hep001/*.h5")
	for _, fn := range files {
		f, err := Open(fn)
		if err != nil {
			fmt.Println("OPEN", fn, err)
			continue
		}
		var walk func(o *Object, depth int)
		walk = func(o *Object, depth int) {
			if depth > 5 {
				return
			}
			links, err := o.Links()
			if err != nil {
				fmt.Println("  LINKS", o.Path, err)
				return
			}
			for _, l := range links {
				c, err := o.OpenLink(l)
				if err != nil {
					fmt.Println("  OPEN", o.Child(l.Name), err)
					continue
				}
				if c.Kind() == KindDataset {
					ds, err := c.Dataset()
					if err != nil {
						fmt.Println("  DS", c.Path, err)
						continue
					}
					_ = ds
				} else if c.Kind() == KindGroup {
					walk(c, depth+1)
				}
			}
		}
		r, err := f.Root()
		if err != nil {
			fmt.Println("ROOT", fn, err)
			continue
		}
		fmt.Println(fn, "sb", f.SuperblockVersion())
		walk(r, 0)
	}
}
