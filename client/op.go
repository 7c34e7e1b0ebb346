package client

import "github.com/felixsim/felixsim/felix"

// opKind says what one CommitOp does.
type opKind uint8

const (
	opInvalid opKind = iota
	opPublish
	opEnqueue
	opPut
	opDelete
)

// CommitOp is one part of a commit: its event (Publish or Enqueue) or a
// state operation (Put or Delete). Build it with those functions; the zero
// CommitOp is invalid and Commit refuses it.
type CommitOp struct {
	kind   opKind
	stream string
	key    string
	bytes  []byte // the payload of an event or the value of a put
}

// Publish is the commit's event, meant for the stream's subscribers.
func Publish(stream string, payload []byte) CommitOp {
	return CommitOp{kind: opPublish, stream: stream, bytes: payload}
}

// Enqueue is the commit's event, meant for the stream's consumer groups.
func Enqueue(stream string, payload []byte) CommitOp {
	return CommitOp{kind: opEnqueue, stream: stream, bytes: payload}
}

// Put sets key to value in the stream's keyed state.
func Put(stream, key string, value []byte) CommitOp {
	return CommitOp{kind: opPut, stream: stream, key: key, bytes: value}
}

// Delete removes key from the stream's keyed state.
func Delete(stream, key string) CommitOp {
	return CommitOp{kind: opDelete, stream: stream, key: key}
}

// Stream is the stream the operation names.
func (op CommitOp) Stream() string { return op.stream }

// String names the operation and its stream for error messages.
func (op CommitOp) String() string {
	switch op.kind {
	case opPublish:
		return "publish(" + op.stream + ")"
	case opEnqueue:
		return "enqueue(" + op.stream + ")"
	case opPut:
		return "put(" + op.stream + ", " + op.key + ")"
	case opDelete:
		return "delete(" + op.stream + ", " + op.key + ")"
	}
	return "invalid CommitOp"
}

func (op CommitOp) isEvent() bool { return op.kind == opPublish || op.kind == opEnqueue }

func (op CommitOp) eventKind() felix.EventKind {
	if op.kind == opEnqueue {
		return felix.EventEnqueue
	}
	return felix.EventPublish
}

func (op CommitOp) stateOp() felix.StateOp {
	if op.kind == opPut {
		return felix.StateOp{Kind: felix.OpPut, Key: op.key, Value: op.bytes}
	}
	return felix.StateOp{Kind: felix.OpDelete, Key: op.key}
}
