package arrowexport

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// logSuffix ends the name of every sidecar log; the number is the record
// format's version.
const logSuffix = ".v1.log"

// maxLogBytes bounds the sidecar log read into memory; a bigger one (only
// a damaged or hostile file could be) is ignored and never appended to.
const maxLogBytes = 256 << 20

// cacheLog is the sidecar of one file identity: a sequence of records,
// each [length uint32][CRC-32C of body uint32][body], the body being
// [uvarint name length][name][value]. A later record of a name replaces
// an earlier one. Reading stops at the first record that is torn or
// fails its checksum, and the log is cut back to the records before it,
// so a crash in mid-append costs only that record.
type cacheLog struct {
	path string

	once    sync.Once
	mu      sync.Mutex
	entries map[string][]byte
	ok      bool // the log is absent or all valid records: appends are safe
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// read loads the log on first use.
func (l *cacheLog) read() {
	l.once.Do(func() {
		l.entries = map[string][]byte{}
		f, err := os.Open(l.path)
		if errors.Is(err, os.ErrNotExist) {
			l.ok = true
			return
		}
		if err != nil {
			return
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxLogBytes+1))
		if err != nil || len(b) > maxLogBytes {
			return
		}
		n := parseLog(b, l.entries)
		l.ok = n == len(b) || os.Truncate(l.path, int64(n)) == nil
	})
}

// parseLog adds the records of b to m and returns how many bytes of b
// were whole, valid records.
func parseLog(b []byte, m map[string][]byte) int {
	off := 0
	for len(b)-off >= 8 {
		n := int(binary.LittleEndian.Uint32(b[off:]))
		sum := binary.LittleEndian.Uint32(b[off+4:])
		if n > len(b)-off-8 {
			break
		}
		body := b[off+8 : off+8+n]
		if crc32.Checksum(body, castagnoli) != sum {
			break
		}
		k, w := binary.Uvarint(body)
		if w <= 0 || k > uint64(len(body)-w) {
			break
		}
		m[string(body[w:w+int(k)])] = body[w+int(k):]
		off += 8 + n
	}
	return off
}

// get returns the value recorded for name.
func (l *cacheLog) get(name string) ([]byte, bool) {
	l.read()
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.entries[name]
	return v, ok
}

// put records value for name, in memory and, with one write, at the end
// of the log.
func (l *cacheLog) put(name string, value []byte) error {
	l.read()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries[name] = value
	if !l.ok {
		return errors.New(l.path + ": unreadable; not appended to")
	}
	body := binary.AppendUvarint(nil, uint64(len(name)))
	body = append(append(body, name...), value...)
	rec := binary.LittleEndian.AppendUint32(nil, uint32(len(body)))
	rec = binary.LittleEndian.AppendUint32(rec, crc32.Checksum(body, castagnoli))
	rec = append(rec, body...)
	if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(rec)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
