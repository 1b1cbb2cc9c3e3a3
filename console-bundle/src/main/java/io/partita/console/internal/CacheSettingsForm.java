package io.partita.console.internal;

import java.util.Locale;
import java.util.Map;

import io.partita.cache.CacheManager;
import io.partita.cache.CachePolicy;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.DeviceKind;

/**
 * The console's capacity and policy form for the constant tensor cache: a target (an engine kind
 * such as {@code cpu}, or one device such as {@code gpu.1}), a capacity in megabytes (a
 * non-negative integer or {@code unlimited}; empty keeps it) and a policy (empty keeps it). Every
 * field is checked before anything is applied, so a refused form changes nothing.
 */
record CacheSettingsForm(DeviceKind kind, Device device, Long capacityMb, CachePolicy policy) {

    /** Largest megabyte count whose byte size still fits a long. */
    static final long MAX_MB = Long.MAX_VALUE >> 20;

    /** Thrown for a field that cannot be read; the message names the field, the value and what was expected. */
    static final class FormException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        FormException(String message) {
            super(message);
        }
    }

    /** Reads the form's fields ({@code target}, {@code capacity}, {@code policy}). */
    static CacheSettingsForm parse(Map<String, String> fields) {
        String target = fields.getOrDefault("target", "").trim().toLowerCase(Locale.ROOT);
        DeviceKind kind = null;
        Device device = null;
        if (target.isEmpty()) {
            throw new FormException("target is missing: expected an engine kind (cpu, gpu) or a device (gpu.1)");
        }
        int dot = target.indexOf('.');
        String kindText = dot < 0 ? target : target.substring(0, dot);
        try {
            kind = DeviceKind.fromSpelling(kindText);
        } catch (IllegalArgumentException e) {
            throw new FormException("target '" + target + "' is not an engine kind or device: expected cpu, gpu or"
                    + " KIND.INDEX such as gpu.1");
        }
        if (dot >= 0) {
            String index = target.substring(dot + 1);
            if (!isSmallNumber(index)) {
                throw new FormException("target '" + target + "': device index '" + index
                        + "' is not a number; expected KIND.INDEX with an index from 0 to 9999, e.g. gpu.1");
            }
            device = new Device(kind, Integer.parseInt(index));
            kind = null;
        }
        Long capacity = null;
        String capacityText = fields.getOrDefault("capacity", "").trim();
        if (!capacityText.isEmpty()) {
            if (capacityText.equalsIgnoreCase("unlimited")) {
                capacity = ConstantTensorCache.UNLIMITED;
            } else {
                try {
                    capacity = Long.parseLong(capacityText);
                } catch (NumberFormatException e) {
                    capacity = -1L;
                }
                if (capacity < 0 || capacity > MAX_MB) {
                    throw new FormException("capacity '" + capacityText + "' is not a capacity: expected megabytes"
                            + " from 0 (cache off) to " + MAX_MB + ", or unlimited");
                }
            }
        }
        CachePolicy policy = null;
        String policyText = fields.getOrDefault("policy", "").trim();
        if (!policyText.isEmpty()) {
            try {
                policy = CachePolicy.fromSpelling(policyText.toLowerCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new FormException("policy '" + policyText + "' is not a cache policy: expected one of "
                        + java.util.Arrays.stream(CachePolicy.values()).map(CachePolicy::spelling).toList());
            }
        }
        if (capacity == null && policy == null) {
            throw new FormException("nothing to change for " + target + ": give a capacity, a policy or both");
        }
        return new CacheSettingsForm(kind, device, capacity, policy);
    }

    private static boolean isSmallNumber(String s) {
        if (s.isEmpty() || s.length() > 4) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** Applies the policy first: a lower capacity then evicts by the new policy. */
    String applyTo(CacheManager caches) {
        StringBuilder done = new StringBuilder(target()).append(':');
        if (policy != null) {
            if (device != null) {
                caches.setConstantTensorCachePolicy(device, policy);
            } else {
                caches.setConstantTensorCachePolicy(kind, policy);
            }
            done.append(" policy ").append(policy.spelling());
        }
        if (capacityMb != null) {
            if (device != null) {
                caches.setConstantTensorCacheCapacity(device, capacityMb);
            } else {
                caches.setConstantTensorCacheCapacity(kind, capacityMb);
            }
            done.append(" capacity ").append(capacityMb == ConstantTensorCache.UNLIMITED ? "unlimited"
                    : capacityMb + " MB");
        }
        return done.toString();
    }

    String target() {
        return device != null ? device.toString() : kind.spelling();
    }
}
