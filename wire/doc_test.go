package wire

import (
	"encoding/hex"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/stretchr/testify/require"
)

// docPath is the reference document these tests keep honest.
const docPath = "../docs/atomic-commit.md"

func readDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(docPath)
	require.NoError(t, err)
	return string(b)
}

// docHex returns the bytes of the fenced block opened by "```text name":
// hex pairs, with everything after '#' on a line ignored.
func docHex(t *testing.T, doc, name string) []byte {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "```text "+name+"\n")
	require.True(t, ok, "no block %q in %s", name, docPath)
	block, _, ok := strings.Cut(rest, "```")
	require.True(t, ok, "block %q is not closed", name)
	var digits strings.Builder
	for _, line := range strings.Split(block, "\n") {
		line, _, _ = strings.Cut(line, "#")
		digits.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(digits.String())
	require.NoError(t, err, "block %q", name)
	return b
}

func TestDocRecordExample(t *testing.T) {
	b := docHex(t, readDoc(t), "record-example")
	got, err := DecodeRecord(b)
	require.NoError(t, err)
	want := felix.Record{Event: felix.EventEnqueue, Payload: []byte("placed"), Conditional: true, ExpectedOffset: 41,
		Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "order-42", Value: []byte("placed")}, {Kind: felix.OpDelete, Key: "cart-42"}}}
	require.Equal(t, want, got)
	again, err := EncodeRecord(&want)
	require.NoError(t, err)
	require.Equal(t, b, again, "the documented bytes are the encoding")
}

func TestDocAnswerExample(t *testing.T) {
	b := docHex(t, readDoc(t), "answer-example")
	got, err := DecodeAnswer(b)
	require.NoError(t, err)
	require.Equal(t, Answer{ID: 7, Body: &Error{Code: CodeNotLeader, LeaderHint: 2}}, got)
}

// docConstants is every constant the document's tables state; the test
// fails if a value differs or a constant is missing from the document.
var docConstants = map[string]uint64{
	"Magic0": Magic0, "Magic1": Magic1, "Version": Version, "FrameHeaderLen": FrameHeaderLen,
	"FrameTrailerLen": FrameTrailerLen, "FrameBodyLenMax": FrameBodyLenMax,
	"FrameRecord": uint64(FrameRecord), "FrameRequest": uint64(FrameRequest), "FrameAnswer": uint64(FrameAnswer),
	"EventPublish": uint64(felix.EventPublish), "EventEnqueue": uint64(felix.EventEnqueue),
	"OpPut": uint64(felix.OpPut), "OpDelete": uint64(felix.OpDelete),
	"KeyLenMax": felix.KeyLenMax, "ValueLenMax": felix.ValueLenMax, "PayloadLenMax": felix.PayloadLenMax,
	"OpsPerRecordMax": felix.OpsPerRecordMax, "NameLenMax": felix.NameLenMax,
	"RequestPublish": uint64(RequestPublish), "RequestPublishIf": uint64(RequestPublishIf), "RequestEnqueue": uint64(RequestEnqueue),
	"RequestCommit": uint64(RequestCommit), "RequestCommitIf": uint64(RequestCommitIf), "RequestStateGet": uint64(RequestStateGet),
	"RequestSubscribeRead": uint64(RequestSubscribeRead), "RequestGroupFetch": uint64(RequestGroupFetch), "RequestGroupAck": uint64(RequestGroupAck),
	"RequestOutboxRead": uint64(RequestOutboxRead), "RequestOutboxTrim": uint64(RequestOutboxTrim),
	"AnswerWritten": uint64(AnswerWritten), "AnswerRefused": uint64(AnswerRefused), "AnswerStateValue": uint64(AnswerStateValue),
	"AnswerEntries": uint64(AnswerEntries), "AnswerDeliveries": uint64(AnswerDeliveries), "AnswerAcked": uint64(AnswerAcked), "AnswerError": uint64(AnswerError),
	"CodeNotLeader": uint64(CodeNotLeader), "CodeNotOnOwningShard": uint64(CodeNotOnOwningShard), "CodeEphemeralStream": uint64(CodeEphemeralStream),
	"CodeFeatureNotFinalized": uint64(CodeFeatureNotFinalized), "CodeBeforeWindow": uint64(CodeBeforeWindow), "CodeInvalidRequest": uint64(CodeInvalidRequest),
	"CodeUnknownStream": uint64(CodeUnknownStream), "CodeUnavailable": uint64(CodeUnavailable), "CodeTimeout": uint64(CodeTimeout), "CodeInternal": uint64(CodeInternal),
	"CodeAdminRefused": uint64(CodeAdminRefused),
}

// docRow matches a table row whose first cell is one backticked identifier
// and whose second cell is a decimal number.
var docRow = regexp.MustCompile("(?m)^\\|\\s*`([A-Za-z][A-Za-z0-9]*)`\\s*\\|\\s*([0-9]+)\\s*\\|")

func TestDocConstants(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range docRow.FindAllStringSubmatch(readDoc(t), -1) {
		want, known := docConstants[m[1]]
		require.True(t, known, "the document states %s = %s, which no test checks", m[1], m[2])
		v, err := strconv.ParseUint(m[2], 10, 64)
		require.NoError(t, err)
		require.Equal(t, want, v, "the document says %s = %d; the code says %d", m[1], v, want)
		seen[m[1]] = true
	}
	for name := range docConstants {
		require.True(t, seen[name], "the document's tables do not state %s", name)
	}
	require.Equal(t, int(errorCodeEnd)-1, countPrefix(seen, "Code"), "every error code is documented")
	require.Equal(t, int(requestKindEnd)-1, countPrefix(seen, "Request"), "every request kind is documented")
}

func countPrefix(m map[string]bool, prefix string) int {
	n := 0
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			n++
		}
	}
	return n
}
