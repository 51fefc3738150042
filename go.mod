module github.com/h5fs/h5fs

go 1.26
