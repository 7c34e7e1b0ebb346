module github.com/felixsim/felixsim

go 1.26

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/pingcap/failpoint v0.0.0-20240528011301-b51a646c7c86
	github.com/stretchr/testify v1.12.1
	go.etcd.io/raft/v3 v3.7.0
	google.golang.org/protobuf v1.36.11
	pgregory.net/rapid v1.3.0
)

require (
	github.com/pingcap/errors v0.11.4 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
