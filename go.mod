module github.com/drydb/drydb

go 1.25.0

require (
	github.com/google/uuid v1.6.0
	github.com/klauspost/compress v1.20.4
	github.com/oklog/ulid/v2 v2.1.2
	go.etcd.io/bbolt v1.5.0
	golang.org/x/sys v0.45.0
)

replace github.com/klauspost/compress => ./third_party/klauspost-compress
