/**
 * The reference backend (private): one op per partition, simple loops with double accumulation.
 * It is exact rather than fast, and every other backend is checked against it.
 */
package io.partita.backend.reference;
