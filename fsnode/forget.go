package fsnode

import (
	"sync"

	"github.com/hanwen/go-fuse/v2/fs"
)

// The kernel keeps the names it has looked up, and their nodes, until
// memory runs short, and h5fs keeps a node (go-fuse's and its own file)
// for each until the kernel forgets it. A listing of a directory of
// 300,000 datasets, 900,000 files, would so hold 900,000 nodes. Names in
// directories bigger than bigDir are therefore kept in a bounded queue:
// once more than keptBigNames are looked up, the oldest is invalidated
// (FUSE_NOTIFY_INVAL_ENTRY), after which the kernel drops it once unused
// and sends FORGET for its node. A file open meanwhile keeps working, and
// a later lookup of the name makes it again.

// bigDir is the most entries of a directory whose names the kernel may
// keep however many there are. Bigger ones are also listed by
// READDIRPLUS without attributes (see dirHandle), as each entry would
// otherwise be a node.
const bigDir = 10_000

// keptBigNames is how many names of big directories the kernel may keep
// at once.
const keptBigNames = 4096

// big reports whether directory d, listed, is bigger than bigDir.
func big(d *dir) bool { return len(d.entries) > bigDir }

// kernelName is a name the kernel looked up in directory parent.
type kernelName struct {
	parent *fs.Inode
	name   string
}

// bigNames is the queue of names looked up in big directories.
type bigNames struct {
	mu      sync.Mutex
	queue   []kernelName // the last keptBigNames looked up, a ring from next
	next    int
	drop    []kernelName // older ones, for the kernel to drop
	running bool         // a goroutine is dropping them
}

// add records a lookup of name in big directory parent, and has the
// oldest name dropped once keptBigNames are kept. It never waits for
// the kernel: an invalidation waits for the lookups in flight in its
// directory, the caller's among them.
func (b *bigNames) add(parent *fs.Inode, name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) < keptBigNames {
		b.queue = append(b.queue, kernelName{parent, name})
		return
	}
	b.drop = append(b.drop, b.queue[b.next])
	b.queue[b.next] = kernelName{parent, name}
	b.next = (b.next + 1) % keptBigNames
	if !b.running {
		b.running = true
		go b.dropNames()
	}
}

// dropNames has the kernel drop the names queued for it, until there
// are none.
func (b *bigNames) dropNames() {
	for {
		b.mu.Lock()
		drop := b.drop
		b.drop = nil
		if len(drop) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		for _, k := range drop {
			_ = k.parent.NotifyEntry(k.name)
		}
	}
}
