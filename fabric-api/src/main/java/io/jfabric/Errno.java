package io.jfabric;

/**
 * Error numbers with libfabric's values ({@code fi_errno.h}): the POSIX numbers it reuses and its own
 * codes from 256 on. The data path returns them negated ({@code -Errno.EAGAIN}), as libfabric does.
 */
public final class Errno {
    /** {@code FI_SUCCESS}: no error. */
    public static final int SUCCESS = 0;
    /** {@code FI_EPERM}: Operation not permitted. */
    public static final int EPERM = 1;
    /** {@code FI_ENOENT}: No such file or directory. */
    public static final int ENOENT = 2;
    /** {@code FI_ESRCH}: No such process. */
    public static final int ESRCH = 3;
    /** {@code FI_EINTR}: Interrupted system call. */
    public static final int EINTR = 4;
    /** {@code FI_EIO}: Input/output error. */
    public static final int EIO = 5;
    /** {@code FI_E2BIG}: Argument list too long. */
    public static final int E2BIG = 7;
    /** {@code FI_EBADF}: Bad file descriptor. */
    public static final int EBADF = 9;
    /**
     * {@code FI_EAGAIN}: Resource temporarily unavailable. On the data path: a queue is full or a connection is
     * still being set up; progress (read a CQ) and post again.
     */
    public static final int EAGAIN = 11;
    /** {@code FI_ENOMEM}: Cannot allocate memory. */
    public static final int ENOMEM = 12;
    /** {@code FI_EACCES}: Permission denied. */
    public static final int EACCES = 13;
    /** {@code FI_EFAULT}: Bad address. */
    public static final int EFAULT = 14;
    /** {@code FI_EBUSY}: Device or resource busy. */
    public static final int EBUSY = 16;
    /** {@code FI_EEXIST}: File exists. */
    public static final int EEXIST = 17;
    /** {@code FI_ENODEV}: No such device. */
    public static final int ENODEV = 19;
    /** {@code FI_EINVAL}: Invalid argument. */
    public static final int EINVAL = 22;
    /** {@code FI_EMFILE}: Too many open files. */
    public static final int EMFILE = 24;
    /** {@code FI_ENOSPC}: No space left on device. */
    public static final int ENOSPC = 28;
    /** {@code FI_ENOSYS}: Function not implemented. */
    public static final int ENOSYS = 38;
    /** {@code FI_ENOMSG}: No message of desired type. */
    public static final int ENOMSG = 42;
    /** {@code FI_ENODATA}: No data available. */
    public static final int ENODATA = 61;
    /** {@code FI_EPROTO}: Protocol error. */
    public static final int EPROTO = 71;
    /** {@code FI_EOVERFLOW}: Value too large for defined data type. */
    public static final int EOVERFLOW = 75;
    /** {@code FI_EMSGSIZE}: Message too long. */
    public static final int EMSGSIZE = 90;
    /** {@code FI_ENOPROTOOPT}: Protocol not available. */
    public static final int ENOPROTOOPT = 92;
    /** {@code FI_EOPNOTSUPP}: Operation not supported. */
    public static final int EOPNOTSUPP = 95;
    /** {@code FI_EADDRINUSE}: Address already in use. */
    public static final int EADDRINUSE = 98;
    /** {@code FI_EADDRNOTAVAIL}: Cannot assign requested address. */
    public static final int EADDRNOTAVAIL = 99;
    /** {@code FI_ENETDOWN}: Network is down. */
    public static final int ENETDOWN = 100;
    /** {@code FI_ENETUNREACH}: Network is unreachable. */
    public static final int ENETUNREACH = 101;
    /** {@code FI_ECONNABORTED}: Software caused connection abort. */
    public static final int ECONNABORTED = 103;
    /** {@code FI_ECONNRESET}: Connection reset by peer. */
    public static final int ECONNRESET = 104;
    /** {@code FI_ENOBUFS}: No buffer space available. */
    public static final int ENOBUFS = 105;
    /** {@code FI_EISCONN}: Transport endpoint is already connected. */
    public static final int EISCONN = 106;
    /** {@code FI_ENOTCONN}: Transport endpoint is not connected. */
    public static final int ENOTCONN = 107;
    /** {@code FI_ESHUTDOWN}: Cannot send after transport endpoint shutdown. */
    public static final int ESHUTDOWN = 108;
    /** {@code FI_ETIMEDOUT}: Connection timed out. */
    public static final int ETIMEDOUT = 110;
    /** {@code FI_ECONNREFUSED}: Connection refused. */
    public static final int ECONNREFUSED = 111;
    /** {@code FI_EHOSTDOWN}: Host is down. */
    public static final int EHOSTDOWN = 112;
    /** {@code FI_EHOSTUNREACH}: No route to host. */
    public static final int EHOSTUNREACH = 113;
    /** {@code FI_EALREADY}: Operation already in progress. */
    public static final int EALREADY = 114;
    /** {@code FI_EINPROGRESS}: Operation now in progress. */
    public static final int EINPROGRESS = 115;
    /** {@code FI_EREMOTEIO}: Remote I/O error. */
    public static final int EREMOTEIO = 121;
    /** {@code FI_ECANCELED}: Operation canceled. */
    public static final int ECANCELED = 125;
    /** {@code FI_EKEYREJECTED}: Key was rejected by service. */
    public static final int EKEYREJECTED = 129;

    /** {@code FI_EOTHER}: Unspecified error. The first of libfabric's own codes (FI_ERRNO_OFFSET = 256). */
    public static final int EOTHER = 256;
    /** {@code FI_ETOOSMALL}: Provided buffer is too small. */
    public static final int ETOOSMALL = 257;
    /** {@code FI_EOPBADSTATE}: Operation not permitted in current state. */
    public static final int EOPBADSTATE = 258;
    /**
     * {@code FI_EAVAIL}: Error available. A CQ or EQ read found an error entry at the head; take it with
     * readError.
     */
    public static final int EAVAIL = 259;
    /** {@code FI_EBADFLAGS}: Flags not supported. */
    public static final int EBADFLAGS = 260;
    /** {@code FI_ENOEQ}: Missing or unavailable event queue. */
    public static final int ENOEQ = 261;
    /** {@code FI_EDOMAIN}: Invalid resource domain. */
    public static final int EDOMAIN = 262;
    /** {@code FI_ENOCQ}: Missing or unavailable completion queue. */
    public static final int ENOCQ = 263;
    /** {@code FI_ECRC}: CRC error. */
    public static final int ECRC = 264;
    /**
     * {@code FI_ETRUNC}: Truncation error. A message was longer than the receive buffer; the error entry's olen
     * is the excess.
     */
    public static final int ETRUNC = 265;
    /** {@code FI_ENOKEY}: Required key not available. */
    public static final int ENOKEY = 266;
    /** {@code FI_ENOAV}: Missing or unavailable address vector. */
    public static final int ENOAV = 267;
    /** {@code FI_EOVERRUN}: Queue has been overrun. */
    public static final int EOVERRUN = 268;
    /** {@code FI_ENORX}: Receiver not ready, no receive buffers available. */
    public static final int ENORX = 269;

    private Errno() {
    }

    /**
     * Text for an error number, as {@code fi_strerror} gives it.
     *
     * @param errno an error number, positive or negated
     * @return e.g. "Resource temporarily unavailable"
     */
    public static String strerror(int errno) {
        int e = Math.abs(errno);
        return switch (e) {
            case SUCCESS -> "Success";
            case EPERM -> "Operation not permitted";
            case ENOENT -> "No such file or directory";
            case ESRCH -> "No such process";
            case EINTR -> "Interrupted system call";
            case EIO -> "Input/output error";
            case E2BIG -> "Argument list too long";
            case EBADF -> "Bad file descriptor";
            case EAGAIN -> "Resource temporarily unavailable";
            case ENOMEM -> "Cannot allocate memory";
            case EACCES -> "Permission denied";
            case EFAULT -> "Bad address";
            case EBUSY -> "Device or resource busy";
            case EEXIST -> "File exists";
            case ENODEV -> "No such device";
            case EINVAL -> "Invalid argument";
            case EMFILE -> "Too many open files";
            case ENOSPC -> "No space left on device";
            case ENOSYS -> "Function not implemented";
            case ENOMSG -> "No message of desired type";
            case ENODATA -> "No data available";
            case EPROTO -> "Protocol error";
            case EOVERFLOW -> "Value too large for defined data type";
            case EMSGSIZE -> "Message too long";
            case ENOPROTOOPT -> "Protocol not available";
            case EOPNOTSUPP -> "Operation not supported";
            case EADDRINUSE -> "Address already in use";
            case EADDRNOTAVAIL -> "Cannot assign requested address";
            case ENETDOWN -> "Network is down";
            case ENETUNREACH -> "Network is unreachable";
            case ECONNABORTED -> "Software caused connection abort";
            case ECONNRESET -> "Connection reset by peer";
            case ENOBUFS -> "No buffer space available";
            case EISCONN -> "Transport endpoint is already connected";
            case ENOTCONN -> "Transport endpoint is not connected";
            case ESHUTDOWN -> "Cannot send after transport endpoint shutdown";
            case ETIMEDOUT -> "Connection timed out";
            case ECONNREFUSED -> "Connection refused";
            case EHOSTDOWN -> "Host is down";
            case EHOSTUNREACH -> "No route to host";
            case EALREADY -> "Operation already in progress";
            case EINPROGRESS -> "Operation now in progress";
            case EREMOTEIO -> "Remote I/O error";
            case ECANCELED -> "Operation canceled";
            case EKEYREJECTED -> "Key was rejected by service";
            case EOTHER -> "Unspecified error";
            case ETOOSMALL -> "Provided buffer is too small";
            case EOPBADSTATE -> "Operation not permitted in current state";
            case EAVAIL -> "Error available";
            case EBADFLAGS -> "Flags not supported";
            case ENOEQ -> "Missing or unavailable event queue";
            case EDOMAIN -> "Invalid resource domain";
            case ENOCQ -> "Missing or unavailable completion queue";
            case ECRC -> "CRC error";
            case ETRUNC -> "Truncation error";
            case ENOKEY -> "Required key not available";
            case ENOAV -> "Missing or unavailable address vector";
            case EOVERRUN -> "Queue has been overrun";
            case ENORX -> "Receiver not ready, no receive buffers available";
            default -> "Unknown error " + e;
        };
    }

    /**
     * The symbolic name of an error number.
     *
     * @param errno an error number, positive or negated
     * @return e.g. {@code FI_EAGAIN}; {@code FI_E<n>} for a number without a name
     */
    public static String name(int errno) {
        int e = Math.abs(errno);
        for (var f : Errno.class.getFields()) {
            try {
                if (f.getType() == int.class && f.getInt(null) == e) {
                    return e == 0 ? "FI_SUCCESS" : "FI_" + f.getName();
                }
            } catch (IllegalAccessException ignored) {
                // public static final fields are always accessible
            }
        }
        return "FI_E" + e;
    }
}
