/** First-compile latency in a fresh JVM with and without the persistent store's blobs. */
package io.partita.benchmarks.warm;
