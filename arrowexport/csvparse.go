package arrowexport

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// CSVParser reads rows in the form a table's CSV view serves them back
// into Arrow arrays: the inverse of CSVView. Any line the view serves
// parses to the values it shows: a missing value (an empty field, or ""
// where missingField writes it so) becomes a null, integers and floats
// (nan, inf) parse at the column's width, booleans as true/false, strings
// with RFC 4180 quoting, fixed-size binary (opaque) cells from base64,
// compound and array cells from their JSON, timestamps from ISO 8601. Categorical and
// enum columns (dictionary fields) yield their labels, as an array of the
// dictionary's value type: mapping labels to codes is the table's
// business.
//
// Bytes are fed with Write as they arrive, in pieces of any size; a line
// is parsed once it is complete (quoted fields may span lines), or at
// Flush. The complete lines of a large Write are parsed on every CPU at
// once, each lane taking a run of whole lines (split where a line ends
// outside quotes). A header line equal to the view's, first in the
// stream, is skipped. A line that does not parse is an error naming its
// line and column; the parser keeps failing after that.
type CSVParser struct {
	names  []string
	parse  []cellParser
	types  []arrow.DataType
	header []byte
	// quotedMissing[j] says "" is a missing value of column j, not an
	// empty value (missingField)
	quotedMissing []bool
	lanes         []*csvLane // lane 0 parses alone; up to GOMAXPROCS share a large Write
	minLane       int        // the fewest bytes worth a lane of their own
	batches       []CSVBatch // rows parsed, not yet taken by NewBatches
	rows          int        // rows in batches
	pending       []byte     // bytes of an incomplete line
	line          int64      // lines seen
	err           error
}

// CSVBatch is rows parsed together: one array per column (labels for
// dictionary columns) and the line of each row (1 is the first line
// written).
type CSVBatch struct {
	Arrays []arrow.Array
	Lines  []int64
}

// csvLane parses whole lines into builders of its own; lines are
// numbered from 0 at the start of each run, and renumbered when the
// lane's rows join the parser's.
type csvLane struct {
	p      *CSVParser
	build  []array.Builder
	line   int64   // lines seen in this run
	lineOf []int64 // the line of each row parsed in this run
	err    *CSVError
	// The fields of the line being parsed, reused from line to line:
	// fields point into the line or, for quoted fields, into unq.
	fields [][]byte
	quoted []bool
	unq    []byte
}

// minLaneBytes is the fewest bytes of whole lines a lane takes in a
// parallel Write: fewer are not worth a goroutine.
const minLaneBytes = 16 << 10

// cellParser appends the value of one CSV field (unquoted) to b. The
// field's bytes are only valid during the call.
type cellParser func(b array.Builder, field []byte) error

// NewCSVParser returns a parser of the lines of t's CSV view.
func NewCSVParser(t *Table) (*CSVParser, error) {
	if _, _, err := checkTable(t); err != nil {
		return nil, err
	}
	p := &CSVParser{header: csvHeader(t), minLane: minLaneBytes}
	for _, c := range t.Columns {
		f := c.Field()
		vt := valueType(f.Type)
		parse, err := cellParserOf(vt)
		if err != nil {
			return nil, fmt.Errorf("arrowexport: column %q: %w", f.Name, err)
		}
		p.names = append(p.names, f.Name)
		p.parse = append(p.parse, parse)
		p.types = append(p.types, vt)
		p.quotedMissing = append(p.quotedMissing, missingField(f.Type, len(t.Columns) == 1) == `""`)
	}
	p.lanes = make([]*csvLane, max(runtime.GOMAXPROCS(0), 1))
	return p, nil
}

// valueType is the type a column's cells parse to: t with every
// dictionary (categorical, enum) replaced by its label type.
func valueType(t arrow.DataType) arrow.DataType {
	switch t := t.(type) {
	case *arrow.DictionaryType:
		return t.ValueType
	case *arrow.StructType:
		fields := make([]arrow.Field, t.NumFields())
		for i, f := range t.Fields() {
			f.Type = valueType(f.Type)
			fields[i] = f
		}
		return arrow.StructOf(fields...)
	case *arrow.FixedSizeListType:
		return arrow.FixedSizeListOfField(t.Len(), arrow.Field{Name: t.ElemField().Name, Type: valueType(t.Elem()), Nullable: true})
	}
	return t
}

// csvHeader returns the header line of t's CSV view.
func csvHeader(t *Table) []byte {
	var h []byte
	for i, c := range t.Columns {
		if i > 0 {
			h = append(h, ',')
		}
		h = appendQuoted(h, c.Field().Name)
	}
	return append(h, '\n')
}

// Write parses the complete lines of pending bytes and b, keeping an
// incomplete last line for the next Write or Flush.
func (p *CSVParser) Write(b []byte) error {
	if p.err != nil {
		return p.err
	}
	if err := p.write(b); err != nil {
		p.err = err
		return err
	}
	return nil
}

func (p *CSVParser) write(b []byte) error {
	if len(p.pending) > 0 { // the line begun earlier: only its bytes are copied
		end := lineEnd(b, bytes.Count(p.pending, []byte{'"'})%2 == 1)
		if end < 0 {
			p.pending = append(p.pending, b...)
			return nil
		}
		p.pending = append(p.pending, b[:end+1]...)
		if err := p.parseLines(p.pending); err != nil {
			return err
		}
		p.pending, b = p.pending[:0], b[end+1:]
	}
	n := lastLineEnd(b) + 1
	if err := p.parseLines(b[:n]); err != nil {
		return err
	}
	p.pending = append(p.pending, b[n:]...)
	return nil
}

// lineEnd returns the index of the first line end outside quotes in b,
// inQuote telling whether b starts inside a quoted field, or -1. A line
// end is one where the line's quotes are even: RFC 4180 doubles the
// quotes inside a quoted field.
func lineEnd(b []byte, inQuote bool) int {
	for i, c := range b {
		switch c {
		case '"':
			inQuote = !inQuote
		case '\n':
			if !inQuote {
				return i
			}
		}
	}
	return -1
}

// lastLineEnd returns the index of the last line end outside quotes in
// b, which starts a line, or -1.
func lastLineEnd(b []byte) int {
	if bytes.IndexByte(b, '"') < 0 {
		return bytes.LastIndexByte(b, '\n')
	}
	last, inQuote := -1, false
	for i, c := range b {
		switch c {
		case '"':
			inQuote = !inQuote
		case '\n':
			if !inQuote {
				last = i
			}
		}
	}
	return last
}

// parseLines parses whole lines, the last one with or without its line
// end: on one lane, or when they are many, on several at once. The rows
// of each lane become a batch, in order.
func (p *CSVParser) parseLines(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	runs := p.runs(data)
	for k := range runs {
		if p.lanes[k] == nil {
			p.lanes[k] = p.newLane()
		}
	}
	header := p.line == 0
	if len(runs) == 1 {
		p.lanes[0].parse(data, header)
	} else {
		var wg sync.WaitGroup
		for k, run := range runs {
			wg.Go(func() { p.lanes[k].parse(run, header && k == 0) })
		}
		wg.Wait()
	}
	for _, l := range p.lanes[:len(runs)] {
		for i := range l.lineOf {
			l.lineOf[i] += p.line
		}
		if l.err != nil {
			l.err.Line += p.line
			p.line += l.line
			return l.err
		}
		p.line += l.line
		if len(l.lineOf) == 0 {
			continue
		}
		arrs := make([]arrow.Array, len(l.build))
		for j, b := range l.build {
			arrs[j] = b.NewArray()
		}
		p.batches = append(p.batches, CSVBatch{Arrays: arrs, Lines: l.lineOf})
		p.rows += len(l.lineOf)
		l.lineOf = nil
	}
	return nil
}

// runs splits whole lines into one run of lines per lane, of about the
// same size, each at least minLane bytes.
func (p *CSVParser) runs(data []byte) [][]byte {
	k := min(len(p.lanes), len(data)/max(p.minLane, 1))
	if k < 2 {
		return [][]byte{data}
	}
	quotes := bytes.IndexByte(data, '"') >= 0
	var runs [][]byte
	start := 0
	for i := 1; i < k; i++ {
		at := max(i*len(data)/k, start)
		inQuote := quotes && bytes.Count(data[:at], []byte{'"'})%2 == 1
		end := lineEnd(data[at:], inQuote)
		if end < 0 || at+end+1 >= len(data) {
			break
		}
		runs = append(runs, data[start:at+end+1])
		start = at + end + 1
	}
	return append(runs, data[start:])
}

// newLane returns a lane with builders of the parser's columns.
func (p *CSVParser) newLane() *csvLane {
	l := &csvLane{p: p}
	for _, t := range p.types {
		l.build = append(l.build, array.NewBuilder(memory.DefaultAllocator, t))
	}
	return l
}

// Flush parses a last line that has no line end, as if it had one.
func (p *CSVParser) Flush() error {
	if p.err != nil {
		return p.err
	}
	if len(p.pending) > 0 {
		if err := p.parseLines(p.pending); err != nil {
			p.err = err
			return err
		}
		p.pending = p.pending[:0]
	}
	return nil
}

// Rows returns the number of rows parsed and not yet taken.
func (p *CSVParser) Rows() int { return p.rows }

// NewBatches returns the rows parsed since the last call, as batches in
// the order of their lines, and starts afresh. The caller releases the
// arrays.
func (p *CSVParser) NewBatches() []CSVBatch {
	bs := p.batches
	p.batches, p.rows = nil, 0
	return bs
}

// Release frees the rows not taken by NewBatches.
func (p *CSVParser) Release() {
	for _, l := range p.lanes {
		if l != nil {
			for _, b := range l.build {
				b.Release()
			}
		}
	}
	for _, bt := range p.NewBatches() {
		for _, a := range bt.Arrays {
			a.Release()
		}
	}
}

// CSVError is a line that does not parse: its number (1 is the first line
// written) and the column it fails at ("" when the line as a whole is
// wrong).
type CSVError struct {
	Line   int64
	Column string
	Err    error
}

func (e *CSVError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("line %d, column %q: %v", e.Line, e.Column, e.Err)
}

func (e *CSVError) Unwrap() error { return e.Err }

// parse parses whole lines, the last one with or without its line end,
// into the lane's builders; header tells whether the first may be the
// header line. It stops at the first line that does not parse (err).
func (l *csvLane) parse(data []byte, header bool) {
	rows := bytes.Count(data, []byte{'\n'}) + 1
	l.line, l.lineOf, l.err = 0, slices.Grow(l.lineOf[:0], rows), nil
	for _, b := range l.build {
		b.Reserve(rows)
	}
	quotes := bytes.IndexByte(data, '"') >= 0
	for len(data) > 0 {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			end = len(data)
		}
		quoted := quotes && bytes.IndexByte(data[:end], '"') >= 0
		if quoted {
			// a quoted field may hold line ends
			if end = lineEnd(data, false); end < 0 {
				end = len(data)
			}
		}
		if err := l.parseLine(data[:end], quoted, header && l.line == 0); err != nil {
			l.err = err
			return
		}
		data = data[min(end+1, len(data)):]
	}
}

// parseLine parses one line (without its "\n"), which holds quotes or
// not: the header when it may be, else a row. After an error the
// builders hold a partial row, but the parser takes nothing more.
func (l *csvLane) parseLine(line []byte, quoted, header bool) *CSVError {
	p := l.p
	l.line++
	line = bytes.TrimSuffix(line, []byte("\r"))
	if header && bytes.Equal(line, p.header[:len(p.header)-1]) {
		return nil
	}
	if !quoted {
		return l.parsePlain(line)
	}
	if err := l.split(line); err != nil {
		return &CSVError{Line: l.line, Err: err}
	}
	if len(l.fields) != len(p.parse) {
		return l.fieldCount(len(l.fields))
	}
	for j, f := range l.fields {
		if err := l.cell(j, f, len(f) == 0 && (!l.quoted[j] || p.quotedMissing[j])); err != nil {
			return err
		}
	}
	l.lineOf = append(l.lineOf, l.line)
	return nil
}

// parsePlain parses a row without quotes: its fields are what lies
// between commas, parsed as they are found.
func (l *csvLane) parsePlain(line []byte) *CSVError {
	if n := bytes.Count(line, []byte{','}) + 1; n != len(l.p.parse) {
		return l.fieldCount(n)
	}
	for j := range l.p.parse {
		k := 0 // fields are short: a loop beats bytes.IndexByte's call
		for k < len(line) && line[k] != ',' {
			k++
		}
		if err := l.cell(j, line[:k], k == 0); err != nil {
			return err
		}
		line = line[min(k+1, len(line)):]
	}
	l.lineOf = append(l.lineOf, l.line)
	return nil
}

// cell appends field f of column j to its builder: a null when missing.
func (l *csvLane) cell(j int, f []byte, missing bool) *CSVError {
	if missing {
		l.build[j].AppendNull()
		return nil
	}
	if err := l.p.parse[j](l.build[j], f); err != nil {
		return &CSVError{Line: l.line, Column: l.p.names[j], Err: err}
	}
	return nil
}

// fieldCount is the error of a line of n fields.
func (l *csvLane) fieldCount(n int) *CSVError {
	return &CSVError{Line: l.line, Err: fmt.Errorf("%d fields, the table has %d columns", n, len(l.p.parse))}
}

// split splits one line into l.fields, unquoting them (RFC 4180: a
// quoted field doubles its quotes). l.quoted tells which fields were
// quoted, so that "" (an empty string) differs from an empty field (a
// missing value).
func (l *csvLane) split(line []byte) error {
	l.fields, l.quoted, l.unq = l.fields[:0], l.quoted[:0], l.unq[:0]
	for i := 0; ; {
		if i < len(line) && line[i] == '"' {
			from := len(l.unq)
			j := i + 1
			for {
				k := bytes.IndexByte(line[j:], '"')
				if k < 0 {
					return fmt.Errorf("field %d: quote not closed", len(l.fields)+1)
				}
				l.unq = append(l.unq, line[j:j+k]...)
				j += k + 1
				if j < len(line) && line[j] == '"' {
					l.unq = append(l.unq, '"')
					j++
					continue
				}
				break
			}
			if j < len(line) && line[j] != ',' {
				return fmt.Errorf("field %d: text after the closing quote", len(l.fields)+1)
			}
			// unq may move as it grows: earlier fields keep the old
			// array, which nothing writes to again during this line.
			l.fields, l.quoted = append(l.fields, l.unq[from:len(l.unq):len(l.unq)]), append(l.quoted, true)
			i = j
		} else {
			k := bytes.IndexByte(line[i:], ',')
			if k < 0 {
				k = len(line) - i
			}
			f := line[i : i+k]
			if bytes.IndexByte(f, '"') >= 0 {
				return fmt.Errorf("field %d: quote inside an unquoted field", len(l.fields)+1)
			}
			l.fields, l.quoted = append(l.fields, f), append(l.quoted, false)
			i += k
		}
		if i >= len(line) {
			return nil
		}
		i++ // the comma
	}
}
