"""`python -m pyspark_hbase ...` is the same as the `spark-hbase` command."""

from pyspark_hbase.cli import main

raise SystemExit(main())
