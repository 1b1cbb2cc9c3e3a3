/**
 * The runtime's CPU thread teams (private): the worker team the CPU backends' parallel loops run
 * on, one per engine and thread count, shared by all backends of a runtime.
 */
package io.partita.runtime.threads;
