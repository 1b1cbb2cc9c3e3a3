/**
 * OpenCL plumbing over JOCL: device discovery, one context per device, command queues as stream
 * attachments, device buffers and counted host-device copies, program builds with their logs.
 */
package io.partita.gpu.internal.cl;
