package h5core

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"sync"
)

// Space reuse. h5core keeps no free-space information in the file (a
// file with libhdf5's persistent free-space manager is refused for
// writing), so space a commit stops using is unreferenced bytes libhdf5
// ignores, as after h5py deletes a dataset. An RW remembers it instead,
// in memory, and hands it out again for structured chunks
// (Tx.allocReusable), which otherwise would grow the file by a whole
// copy of a dataset per commit that rewrites it.
//
// Crash safety rests on three rules. Space freed by a transaction
// becomes reusable only once that transaction has committed (its journal
// is gone): until then a crash or a rollback brings back the state that
// points at it. A commit leaves the removal of its journal unsynced, so
// before the first write to reused space after a commit the directory is
// synced: otherwise a crash could bring that journal back and roll the
// file back to a state that reads the space. And space reused by a
// transaction is written in place without journaling it, as space past
// the end of file is, before any pointer to it, and synced with the
// journal before the first overwrite (Tx.apply): no durable state and no
// hot journal names it. A rolled-back transaction gives the space it
// took back, but not what it grew the file by (the rollback truncates
// that).
//
// Readers of an older state (a Snapshot taken before the commit that
// freed the space) may still read it: Hold keeps a state's space from
// being reused for as long as such a reader lives.

// extent is a byte range [off, end) of relative file addresses.
type extent struct{ off, end uint64 }

// freedExtent is space freed by the commit that made generation gen:
// every state before gen may reference it.
type freedExtent struct {
	extent
	gen uint64
}

// freeSpace is the reusable space of an RW and the generations readers
// hold. Hold and its release may run on any goroutine; the rest runs on
// the writer's.
type freeSpace struct {
	mu     sync.Mutex
	gen    uint64         // commits so far
	free   []extent       // reusable, sorted by offset, coalesced
	aged   []freedExtent  // freed, waiting for readers of older states
	holds  map[uint64]int // held generation -> holders
	reused uint64         // the newest generation whose freed space was reused
	// unsynced: the last commit's journal removal may not be durable
	// (journal.remove); the writer's goroutine only
	unsynced bool
	// syncing, when not nil, delivers the result of a sync of the
	// journal's directory started (startReuseSync) at generation
	// syncGen; the writer's goroutine only
	syncing chan error
	syncGen uint64
}

// add makes e reusable, coalescing it with its neighbours. Space that
// overlaps free space (a chunk address two index records share, in a
// damaged file) stays unused: handing it out twice would overwrite live
// data.
func (s *freeSpace) add(e extent) {
	if e.off >= e.end {
		return
	}
	i := sort.Search(len(s.free), func(i int) bool { return s.free[i].off >= e.off })
	if (i > 0 && s.free[i-1].end > e.off) || (i < len(s.free) && s.free[i].off < e.end) {
		return
	}
	if i > 0 && s.free[i-1].end == e.off {
		i--
		s.free[i].end = e.end
	} else {
		s.free = slices.Insert(s.free, i, e)
	}
	if i+1 < len(s.free) && s.free[i+1].off == s.free[i].end {
		s.free[i].end = s.free[i+1].end
		s.free = slices.Delete(s.free, i+1, i+2)
	}
}

// ripen makes reusable the aged space no held generation may read:
// space freed at generation g is read by states before g only.
func (s *freeSpace) ripen() {
	oldest := s.gen
	for g := range s.holds {
		oldest = min(oldest, g)
	}
	kept := s.aged[:0]
	for _, a := range s.aged {
		if a.gen > oldest {
			kept = append(kept, a)
			continue
		}
		s.add(a.extent)
		s.reused = max(s.reused, a.gen)
	}
	s.aged = kept
}

// take removes n bytes from the first reusable extent that holds them,
// or from an extent that ends at eoa (the file then grows by the rest),
// and returns their address.
func (s *freeSpace) take(n, eoa uint64) (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ripen()
	for i := range s.free {
		e := &s.free[i]
		if e.end-e.off >= n || e.end == eoa {
			a := e.off
			if e.off += n; e.off >= e.end {
				s.free = slices.Delete(s.free, i, i+1)
			}
			return a, true
		}
	}
	return 0, false
}

// commit makes the space a transaction freed (aged at the new
// generation) wait for the readers of older states.
func (s *freeSpace) commit(freed []extent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	for _, e := range freed {
		s.aged = append(s.aged, freedExtent{e, s.gen})
	}
}

// giveBack returns space a transaction took, up to eoa: what lies past
// it was the file's growth, not free space.
func (s *freeSpace) giveBack(taken []extent, eoa uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range taken {
		s.add(extent{e.off, min(e.end, eoa)})
	}
	// and free space past it was slack of that growth (Tx.grow)
	for i := len(s.free) - 1; i >= 0 && s.free[i].end > eoa; i-- {
		if s.free[i].end = eoa; s.free[i].off >= eoa {
			s.free = s.free[:i]
		}
	}
}

// Generation returns the number of transactions committed through w:
// the state on disk, as a Snapshot taken now shows it.
func (w *RW) Generation() uint64 {
	w.space.mu.Lock()
	defer w.space.mu.Unlock()
	return w.space.gen
}

// Hold keeps the space the state of generation gen uses from being
// reused until release is called, so that a reader of a Snapshot of that
// state (taken when Generation returned gen) reads it intact. It fails
// when some of that space was already reused: the reader must take a new
// Snapshot. Hold and release may be called from any goroutine.
func (w *RW) Hold(gen uint64) (release func(), err error) {
	s := &w.space
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen < s.reused {
		return nil, fmt.Errorf("%s: state %d is gone: its space was reused after commit %d", w.name, gen, s.reused)
	}
	if s.holds == nil {
		s.holds = map[uint64]int{}
	}
	s.holds[gen]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.holds[gen]--; s.holds[gen] == 0 {
				delete(s.holds, gen)
			}
		})
	}, nil
}

// growthSlack is the share of the end of file (1/growthSlack) by which
// allocReusable grows the file beyond what it needs, at least
// minGrowthSlack bytes: the slack is free space for the chunks that
// follow, in this transaction and the next ones, which then need not
// grow the file, each growth costing a commit a sync of its own (the
// superblock's end-of-file address, before the pointers past it).
const (
	growthSlack    = 16
	minGrowthSlack = 64 << 10
)

// startReuseSync starts syncing, in the background, the directory of the
// journal whose removal the last commit left unsynced, which
// allocReusable waits for before handing out freed space: a transaction
// that will take some calls it first, so that the sync overlaps its
// work.
func (tx *Tx) startReuseSync() {
	s := &tx.w.space
	if !s.unsynced || s.syncing != nil {
		return
	}
	ch := make(chan error, 1)
	s.syncing, s.syncGen = ch, tx.w.Generation()
	dir, fsys := filepath.Dir(tx.j.path), tx.w.fsys
	go func() { ch <- fsys.SyncDir(dir) }()
}

// syncForReuse makes the last commit's journal removal durable: from the
// background sync startReuseSync started since that commit, else now.
func (tx *Tx) syncForReuse() error {
	s := &tx.w.space
	if ch := s.syncing; ch != nil {
		s.syncing = nil
		if err := <-ch; err == nil && s.syncGen == tx.w.Generation() {
			return nil
		} // failed, or started before the last commit: sync again
	}
	return tx.w.fsys.SyncDir(filepath.Dir(tx.j.path))
}

// allocReusable reserves n bytes for content written whole by this
// transaction (a structured chunk): from space freed by earlier commits
// when some fits, else at the end of the file, which then grows by a
// slack (growthSlack) more, free for what follows.
func (tx *Tx) allocReusable(n uint64) uint64 {
	s := &tx.w.space
	a, ok := s.take(n, tx.eoa)
	if ok && s.unsynced {
		if err := tx.syncForReuse(); err != nil {
			s.giveBack([]extent{{a, a + n}}, tx.eoa) // at the end of file, then
			return tx.alloc(n)
		}
		s.unsynced = false
	}
	if !ok {
		a = tx.eoa
	}
	if a+n > tx.eoa {
		tx.grow(a + n - tx.eoa)
	}
	if ok {
		tx.taken = append(tx.taken, extent{a, a + n})
	}
	return a
}

// grow extends the file by n bytes and a slack, which it makes free
// space, writing its last byte so that the file's size covers it (no
// state points into it: a crash or a rollback drops it with the rest of
// the growth, and giveBack forgets it).
func (tx *Tx) grow(n uint64) {
	slack := max(tx.eoa/growthSlack, minGrowthSlack)
	at := tx.alloc(n + slack)
	if err := tx.write(at+n+slack-1, []byte{0}); err != nil {
		return // the write failed the transaction
	}
	s := &tx.w.space
	s.mu.Lock()
	defer s.mu.Unlock()
	s.add(extent{at + n, at + n + slack})
}

// free releases n bytes at addr, which the transaction stopped using:
// reusable once it commits.
func (tx *Tx) free(addr, n uint64) {
	if addr != undefAddr && n > 0 {
		tx.freed = append(tx.freed, extent{addr, addr + n})
	}
}

// inTaken reports whether [addr, addr+n) lies in space the transaction
// took from the free space: it is written in place, unjournaled.
func (tx *Tx) inTaken(addr, n uint64) bool {
	for i := len(tx.taken) - 1; i >= 0; i-- { // the newest first: written next
		if e := tx.taken[i]; addr >= e.off && addr+n <= e.end {
			return true
		}
	}
	return false
}
