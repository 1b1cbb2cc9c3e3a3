/**
 * The OpenCL (JOCL) GPU engine lands here.
 * This bundle is deliberately empty until then: it registers no service and claims no op.
 */
package io.partita.gpu;
