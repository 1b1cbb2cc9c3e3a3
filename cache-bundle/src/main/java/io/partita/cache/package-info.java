/**
 * The unified constant tensor cache, the LRU kernel cache and the persistent kernel cache land here (issue: unified constant tensor cache).
 * This bundle is deliberately empty until then: it registers no service and claims no op.
 */
package io.partita.cache;
