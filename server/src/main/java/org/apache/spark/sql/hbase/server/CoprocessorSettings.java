// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.IOException;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;

/**
 * A region coprocessor's start: its environment, and the properties it was installed with, each
 * refused with the coprocessor's and the property's names when missing or out of range.
 */
final class CoprocessorSettings {
  private final String owner;
  private final RegionCoprocessorEnvironment env;

  CoprocessorSettings(Object coprocessor, CoprocessorEnvironment environment) throws IOException {
    this.owner = coprocessor.getClass().getSimpleName();
    if (!(environment instanceof RegionCoprocessorEnvironment)) {
      throw new IOException(owner + " is a region coprocessor");
    }
    this.env = (RegionCoprocessorEnvironment) environment;
  }

  RegionCoprocessorEnvironment environment() {
    return env;
  }

  String required(String property) throws IOException {
    String value = env.getConfiguration().get(property);
    if (value == null || value.isEmpty()) {
      throw new IOException(owner + " needs the property " + property);
    }
    return value;
  }

  long positive(String property, long otherwise) throws IOException {
    long value = env.getConfiguration().getLong(property, otherwise);
    if (value <= 0) throw new IOException(property + " must be positive");
    return value;
  }
}
