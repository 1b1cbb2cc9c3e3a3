/**
 * Partita as the engine of Spark ML batch inference: {@link io.partita.spark.PartitaModel} scores the
 * rows of a DataFrame through one compiled graph per executor JVM.
 */
package io.partita.spark;
