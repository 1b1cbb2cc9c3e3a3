/**
 * Execution of a compiled partition: device buffers per call for its ports and scratch, counted
 * copies in and out, and the recorded kernel launches with their arguments.
 */
package io.partita.gpu.internal.exec;
