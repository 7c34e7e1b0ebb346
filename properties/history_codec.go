package properties

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// historyHeader opens every encoded history; the version changes with the format.
const historyHeader = "felixsim-history v1"

// HistoryLineLenMax caps one encoded operation when parsing; a longer line
// is refused.
const HistoryLineLenMax = 8 << 20

// HistoryOpsMax caps the operations a parsed history may hold; more are refused.
const HistoryOpsMax = 1 << 22

// EncodeHistory writes h as text: a header line, then one JSON object per
// operation. ParseHistory reads it back to an equal History.
func EncodeHistory(w io.Writer, h *History) error {
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(historyHeader + "\n"); err != nil {
		return err
	}
	for i := range h.Ops {
		if err := h.Ops[i].Validate(); err != nil {
			return fmt.Errorf("history encode: op %d refused: %w", i, err)
		}
		b, err := json.Marshal(&h.Ops[i])
		if err != nil {
			return fmt.Errorf("history encode: op %d: %w", i, err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ParseHistory reads a history written by EncodeHistory. It refuses, with
// the line number and the reason, a missing header, malformed JSON,
// unknown fields, invalid kinds or outcomes, ids not ascending, and any
// operation that fails HistoryOp.Validate.
func ParseHistory(r io.Reader) (*History, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), HistoryLineLenMax)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("history parse: header: %w", err)
		}
		return nil, fmt.Errorf("history parse refused: empty input, want header %q", historyHeader)
	}
	if sc.Text() != historyHeader {
		return nil, fmt.Errorf("history parse refused: line 1 is %.40q, want header %q", sc.Text(), historyHeader)
	}
	h := &History{}
	for line := 2; sc.Scan(); line++ {
		if len(h.Ops) >= HistoryOpsMax {
			return nil, fmt.Errorf("history parse refused: more than %d operations", HistoryOpsMax)
		}
		op, err := parseHistoryLine(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("history parse refused: line %d: %w", line, err)
		}
		if n := len(h.Ops); n > 0 && op.ID <= h.Ops[n-1].ID {
			return nil, fmt.Errorf("history parse refused: line %d: op id %d not above the previous %d", line, op.ID, h.Ops[n-1].ID)
		}
		h.Ops = append(h.Ops, op)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("history parse: %w", err)
	}
	return h, nil
}

func parseHistoryLine(b []byte) (HistoryOp, error) {
	var op HistoryOp
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&op); err != nil {
		return HistoryOp{}, err
	}
	if dec.More() {
		return HistoryOp{}, fmt.Errorf("trailing data after the operation")
	}
	return op, op.Validate()
}

// Validate checks an operation's shape: a valid kind and outcome, a
// positive id, a record exactly for writes, times in order.
func (op *HistoryOp) Validate() error {
	switch {
	case op.ID == 0:
		return fmt.Errorf("op id 0 is reserved")
	case op.Kind == historyKindInvalid || op.Kind >= historyKindEnd:
		return fmt.Errorf("op %d: kind %d is invalid", op.ID, uint8(op.Kind))
	case op.Outcome == outcomeInvalid || op.Outcome >= outcomeEnd:
		return fmt.Errorf("op %d: outcome %d is invalid", op.ID, uint8(op.Outcome))
	case op.Kind.IsWrite() != (op.Record != nil):
		return fmt.Errorf("op %d: %s with record present=%t", op.ID, op.Kind, op.Record != nil)
	case op.RetryOf >= op.ID:
		return fmt.Errorf("op %d: retry of op %d, which is not earlier", op.ID, op.RetryOf)
	case op.InvokeNs < 0:
		return fmt.Errorf("op %d: invoked at %d ns, negative", op.ID, op.InvokeNs)
	case op.Outcome == OutcomePending && op.CompleteNs != 0:
		return fmt.Errorf("op %d: pending but completed at %d ns", op.ID, op.CompleteNs)
	case op.Outcome != OutcomePending && op.CompleteNs < op.InvokeNs:
		return fmt.Errorf("op %d: completed at %d ns before its invocation at %d ns", op.ID, op.CompleteNs, op.InvokeNs)
	case op.NotSent && (op.Outcome != OutcomeFailed || op.CompleteNs != op.InvokeNs):
		return fmt.Errorf("op %d: not sent, yet %s at %d ns after its invocation at %d ns", op.ID, op.Outcome, op.CompleteNs, op.InvokeNs)
	case op.Outcome == OutcomeRefused && !op.Kind.IsConditional():
		return fmt.Errorf("op %d: %s cannot be refused", op.ID, op.Kind)
	}
	return nil
}
