# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""What the tests and benchmarks do to an embedded HBase beyond running it: kill and stop region
servers, secure it with the tests' KDC, grant rights as HBase's superuser, and find the processes
a test run left behind. It lives beside
`pyspark_hbase` in the source tree and is not in the wheel (`bin/build-wheel` packs
`pyspark_hbase` alone)."""
