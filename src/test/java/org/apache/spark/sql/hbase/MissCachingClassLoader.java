// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A class loader that defines nothing and remembers the names its parent could not find.
 *
 * <p>Janino, compiling each query's generated code, looks names up in every package the code
 * imports, and most lookups miss. On the test JVM's classpath of some three hundred jars each miss
 * searches every jar: 8 % of the differential specs' CPU went there. The test session's Spark loads
 * classes through this loader (see HBaseSparkSession); the specs add no jars, so a name missing
 * once stays missing.
 */
final class MissCachingClassLoader extends ClassLoader {
  static {
    registerAsParallelCapable();
  }

  private final Set<String> missing = ConcurrentHashMap.newKeySet();

  MissCachingClassLoader(ClassLoader parent) {
    super(parent);
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    if (missing.contains(name)) {
      throw new ClassNotFoundException(name);
    }
    try {
      return super.loadClass(name, resolve);
    } catch (ClassNotFoundException e) {
      missing.add(name);
      throw e;
    }
  }
}
