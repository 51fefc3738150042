package arrowexport

import (
	"runtime/debug"
	"sync"
)

// arrowGoVersion is the version of the arrow-go module in the binary, part
// of cache entry kinds: another arrow-go may encode other bytes.
var arrowGoVersion = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/apache/arrow-go/v18" {
				return d.Version
			}
		}
	}
	return "arrow-go-unknown"
})
