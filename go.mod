module github.com/h5fs/h5fs

go 1.26

require (
	github.com/apache/arrow-go/v18 v18.8.0
	github.com/hanwen/go-fuse/v2 v2.12.1
)
