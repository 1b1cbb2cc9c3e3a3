/** Which ops fuse: the shapes of the partitions the graph compiler claims. */
package io.partita.backend.compiler.internal.fusion;
