package fusetest

import (
	"bytes"
	"encoding/csv"
	"fmt"
)

// ReadCSV parses the CSV text of a view into records as encoding/csv
// does, but keeps blank lines: each is a record of one empty field, the
// missing string of a one-column CSV (<col>.csv), which encoding/csv
// would skip, losing the row.
func ReadCSV(b []byte) ([][]string, error) {
	var out [][]string
	for len(b) > 0 {
		if b[0] == '\n' {
			out, b = append(out, []string{""}), b[1:]
			continue
		}
		r := csv.NewReader(bytes.NewReader(b))
		r.FieldsPerRecord = -1
		rec, err := r.Read()
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", len(out)+1, err)
		}
		out, b = append(out, rec), b[r.InputOffset():]
	}
	return out, nil
}
