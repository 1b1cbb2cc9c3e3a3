/** The cache implementations: constant tensor caches, LRU kernel caches, settings. */
package io.partita.cache.internal;
