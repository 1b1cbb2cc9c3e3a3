/**
 * The runtime core behind the Graph API (private): graphs and their validation, the partitioner
 * (ranked backends claim convex op sets; the reference backend takes the rest), compiled
 * partitions and their cache, whole-graph execution, and the plain class path factory.
 */
package io.partita.runtime;
