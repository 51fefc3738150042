package arrowexport

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// CSVParser reads rows in the form a table's CSV view serves them back
// into Arrow arrays: the inverse of CSVView. Any line the view serves
// parses to the values it shows: a missing value (an empty field, or ""
// in a one-column file) becomes a null, integers and floats (nan, inf)
// parse at the column's width, booleans as true/false, strings with RFC
// 4180 quoting, fixed-size binary (opaque) cells from base64, compound and
// array cells from their JSON, timestamps from ISO 8601. Categorical and
// enum columns (dictionary fields) yield their labels, as an array of the
// dictionary's value type: mapping labels to codes is the table's
// business.
//
// Bytes are fed with Write as they arrive, in pieces of any size; a line
// is parsed once it is complete (quoted fields may span lines), or at
// Flush. A header
// line equal to the view's, first in the stream, is skipped. A line that
// does not parse is an error naming its line and column; the parser keeps
// failing after that.
type CSVParser struct {
	names   []string
	parse   []cellParser
	build   []array.Builder
	header  []byte
	oneCol  bool
	pending []byte  // bytes of an incomplete line
	line    int64   // lines seen
	rows    int     // rows parsed since NewArrays
	lineOf  []int64 // the line of each of those rows
	err     error
	// The fields of the line being parsed, reused from line to line:
	// fields point into the line or, for quoted fields, into unq.
	fields [][]byte
	quoted []bool
	unq    []byte
}

// cellParser appends the value of one CSV field (unquoted) to b. The
// field's bytes are only valid during the call.
type cellParser func(b array.Builder, field []byte) error

// NewCSVParser returns a parser of the lines of t's CSV view.
func NewCSVParser(t *Table) (*CSVParser, error) {
	if _, _, err := checkTable(t); err != nil {
		return nil, err
	}
	p := &CSVParser{header: csvHeader(t), oneCol: len(t.Columns) == 1}
	for _, c := range t.Columns {
		f := c.Field()
		vt := valueType(f.Type)
		parse, err := cellParserOf(vt)
		if err != nil {
			return nil, fmt.Errorf("arrowexport: column %q: %w", f.Name, err)
		}
		p.names = append(p.names, f.Name)
		p.parse = append(p.parse, parse)
		p.build = append(p.build, array.NewBuilder(memory.DefaultAllocator, vt))
	}
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
	data := b
	if len(p.pending) > 0 {
		p.pending = append(p.pending, b...)
		data = p.pending
	}
	start, err := p.parseLines(data)
	if err != nil {
		p.err = err
		return err
	}
	p.pending = append(p.pending[:0], data[start:]...)
	return nil
}

// parseLines parses the complete lines of data and returns where the
// incomplete rest begins.
func (p *CSVParser) parseLines(data []byte) (int, error) {
	start := 0
	for {
		nl := bytes.IndexByte(data[start:], '\n')
		if nl < 0 {
			return start, nil
		}
		end := start + nl
		if bytes.IndexByte(data[start:end], '"') >= 0 {
			// A quoted field may hold line ends: the line ends at the
			// first one outside quotes.
			if end = lineEnd(data, start); end < 0 {
				return start, nil
			}
		}
		if err := p.parseLine(data[start:end]); err != nil {
			return 0, err
		}
		start = end + 1
	}
}

// lineEnd returns the index of the first line end outside quotes in
// data from start, or -1.
func lineEnd(data []byte, start int) int {
	inQuote := false
	for i := start; i < len(data); i++ {
		switch data[i] {
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

// Flush parses a last line that has no line end, as if it had one.
func (p *CSVParser) Flush() error {
	if p.err != nil {
		return p.err
	}
	if len(p.pending) > 0 {
		if err := p.parseLine(p.pending); err != nil {
			p.err = err
			return err
		}
		p.pending = p.pending[:0]
	}
	return nil
}

// Rows returns the number of rows parsed so far.
func (p *CSVParser) Rows() int { return p.rows }

// NewArrays returns the rows parsed since the last call, one array per
// column (labels for dictionary columns), and the line of each row (1 is
// the first line written; valid until the next Write or Flush), and
// starts afresh. The caller releases the arrays.
func (p *CSVParser) NewArrays() ([]arrow.Array, []int64) {
	out := make([]arrow.Array, len(p.build))
	for j, b := range p.build {
		out[j] = b.NewArray()
	}
	lines := p.lineOf
	p.rows, p.lineOf = 0, p.lineOf[:0]
	return out, lines
}

// Release frees the rows not taken by NewArrays.
func (p *CSVParser) Release() {
	for _, b := range p.build {
		b.Release()
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

// parseLine parses one line (without its "\n"): the header when it comes
// first, else a row. After an error the builders hold a partial row, but
// the parser takes nothing more.
func (p *CSVParser) parseLine(l []byte) error {
	p.line++
	l = bytes.TrimSuffix(l, []byte("\r"))
	if p.line == 1 && bytes.Equal(l, p.header[:len(p.header)-1]) {
		return nil
	}
	if err := p.split(l); err != nil {
		return &CSVError{Line: p.line, Err: err}
	}
	if len(p.fields) != len(p.parse) {
		return &CSVError{Line: p.line, Err: fmt.Errorf("%d fields, the table has %d columns", len(p.fields), len(p.parse))}
	}
	for j, f := range p.fields {
		b := p.build[j]
		missing := len(f) == 0 && (!p.quoted[j] || p.oneCol)
		if missing {
			b.AppendNull()
			continue
		}
		if err := p.parse[j](b, f); err != nil {
			return &CSVError{Line: p.line, Column: p.names[j], Err: err}
		}
	}
	p.rows++
	p.lineOf = append(p.lineOf, p.line)
	return nil
}

// split splits one line into p.fields, unquoting them (RFC 4180: a
// quoted field doubles its quotes). p.quoted tells which fields were
// quoted, so that "" (an empty string) differs from an empty field (a
// missing value).
func (p *CSVParser) split(l []byte) error {
	p.fields, p.quoted, p.unq = p.fields[:0], p.quoted[:0], p.unq[:0]
	for i := 0; ; {
		if i < len(l) && l[i] == '"' {
			from := len(p.unq)
			j := i + 1
			for {
				k := bytes.IndexByte(l[j:], '"')
				if k < 0 {
					return fmt.Errorf("field %d: quote not closed", len(p.fields)+1)
				}
				p.unq = append(p.unq, l[j:j+k]...)
				j += k + 1
				if j < len(l) && l[j] == '"' {
					p.unq = append(p.unq, '"')
					j++
					continue
				}
				break
			}
			if j < len(l) && l[j] != ',' {
				return fmt.Errorf("field %d: text after the closing quote", len(p.fields)+1)
			}
			// unq may move as it grows: earlier fields keep the old
			// array, which nothing writes to again during this line.
			p.fields, p.quoted = append(p.fields, p.unq[from:len(p.unq):len(p.unq)]), append(p.quoted, true)
			i = j
		} else {
			k := bytes.IndexByte(l[i:], ',')
			if k < 0 {
				k = len(l) - i
			}
			f := l[i : i+k]
			if bytes.IndexByte(f, '"') >= 0 {
				return fmt.Errorf("field %d: quote inside an unquoted field", len(p.fields)+1)
			}
			p.fields, p.quoted = append(p.fields, f), append(p.quoted, false)
			i += k
		}
		if i >= len(l) {
			return nil
		}
		i++ // the comma
	}
}
