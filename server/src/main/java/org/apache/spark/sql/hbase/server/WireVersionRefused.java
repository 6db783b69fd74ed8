// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.IOException;

/**
 * Bytes of a wire version this jar does not read: a deployment of mixed versions, not corruption.
 * Clients recognise it by its class name, which HBase passes on with a remote failure.
 */
public final class WireVersionRefused extends IOException {
  private static final long serialVersionUID = 1L;

  public final int version;

  WireVersionRefused(String what, int version) {
    super(
        what
            + " was written with wire version "
            + version
            + ", but this region server's spark-hbase-sql "
            + "server jar ("
            + ServerJar.buildVersion()
            + ") reads versions "
            + ServerJar.OLDEST_WIRE_VERSION
            + " to "
            + ServerJar.WIRE_VERSION
            + "; deploy the server jar that matches the client");
    this.version = version;
  }
}
