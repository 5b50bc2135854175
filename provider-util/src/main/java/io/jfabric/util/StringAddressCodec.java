package io.jfabric.util;

import java.nio.charset.StandardCharsets;

/**
 * FI_ADDR_STR addresses ("fi_shm://1234:ep0"), stored as the string's bytes without the NUL, as
 * FabricInfo stores them. Valid addresses start with the provider's scheme, are printable ASCII and
 * fit {@code maxLength}; {@code straddr} is the string itself. Difference: libfabric keeps the NUL in
 * the address length; Java arrays know their length.
 */
public final class StringAddressCodec implements AddressCodec {
    private final String scheme;
    private final int maxLength;

    /** @param scheme the required prefix, e.g. "fi_shm://" */
    public StringAddressCodec(String scheme, int maxLength) {
        this.scheme = scheme;
        this.maxLength = maxLength;
    }

    public String scheme() {
        return scheme;
    }

    @Override
    public String validate(byte[] addr) {
        if (addr == null || addr.length == 0) {
            return "address is empty";
        }
        if (addr.length > maxLength) {
            return "address is " + addr.length + " bytes, longer than " + maxLength;
        }
        for (byte b : addr) {
            if (b < 0x21 || b > 0x7e) {
                return "address has a non-printable byte (0x" + Integer.toHexString(b & 0xff) + ")";
            }
        }
        String s = new String(addr, StandardCharsets.US_ASCII);
        if (!s.startsWith(scheme) || s.length() == scheme.length()) {
            return "'" + s + "' is not a " + scheme + "<name> address";
        }
        return null;
    }

    @Override
    public String straddr(byte[] addr) {
        return addr == null ? "null" : new String(addr, StandardCharsets.US_ASCII);
    }

    @Override
    public byte[] resolve(String node, String service) {
        String s = node != null && node.startsWith(scheme) ? node : scheme + (node == null ? "" : node)
                + (service == null ? "" : (node == null ? "" : ":") + service);
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
