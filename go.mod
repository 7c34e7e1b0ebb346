module github.com/felixsim/felixsim

go 1.26

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/pingcap/failpoint v0.0.0-20240528011301-b51a646c7c86
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/stretchr/testify v1.12.1
	go.etcd.io/raft/v3 v3.7.0
	golang.org/x/term v0.44.0
	google.golang.org/protobuf v1.36.11
	pgregory.net/rapid v1.3.0
)

require (
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/pingcap/errors v0.11.4 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.46.0 // indirect
)
