/* Prints sizeof/offsetof/constant values of everything provider-verbs binds, one "name value" per
 * line, for LayoutProbeTest to compare with the Java layouts. Compiled against the installed
 * rdma-core headers (libibverbs-dev, librdmacm-dev). */
#include <stddef.h>
#include <stdio.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define S(t) printf("sizeof(%s) %zu\n", #t, sizeof(struct t))
#define O(t, f) printf("offsetof(%s.%s) %zu\n", #t, #f, offsetof(struct t, f))
#define C(c) printf("%s %lld\n", #c, (long long)(c))

int main(void) {
    S(ibv_context); O(ibv_context, device); O(ibv_context, ops); O(ibv_context, cmd_fd);
    O(ibv_context, async_fd); O(ibv_context, num_comp_vectors);
    S(ibv_context_ops); O(ibv_context_ops, poll_cq); O(ibv_context_ops, req_notify_cq);
    O(ibv_context_ops, post_send); O(ibv_context_ops, post_recv); O(ibv_context_ops, post_srq_recv);
    S(ibv_device_attr); O(ibv_device_attr, max_mr_size); O(ibv_device_attr, max_qp); O(ibv_device_attr, max_qp_wr);
    O(ibv_device_attr, max_sge); O(ibv_device_attr, max_cq); O(ibv_device_attr, max_cqe); O(ibv_device_attr, max_mr);
    O(ibv_device_attr, max_pd); O(ibv_device_attr, max_qp_rd_atom); O(ibv_device_attr, max_qp_init_rd_atom); O(ibv_device_attr, atomic_cap);
    O(ibv_device_attr, max_srq_wr); O(ibv_device_attr, phys_port_cnt);
    O(ibv_device_attr, max_srq); O(ibv_device_attr, max_srq_sge);
    S(ibv_srq); O(ibv_srq, context); O(ibv_srq, srq_context); O(ibv_srq, pd); O(ibv_srq, handle);
    S(ibv_srq_init_attr); O(ibv_srq_init_attr, srq_context); O(ibv_srq_init_attr, attr.max_wr);
    O(ibv_srq_init_attr, attr.max_sge); O(ibv_srq_init_attr, attr.srq_limit);
    S(ibv_port_attr); O(ibv_port_attr, state); O(ibv_port_attr, max_mtu); O(ibv_port_attr, active_mtu);
    O(ibv_port_attr, max_msg_sz); O(ibv_port_attr, link_layer);
    S(ibv_pd); O(ibv_pd, context); O(ibv_pd, handle);
    S(ibv_mr); O(ibv_mr, context); O(ibv_mr, pd); O(ibv_mr, addr); O(ibv_mr, length); O(ibv_mr, handle);
    O(ibv_mr, lkey); O(ibv_mr, rkey);
    S(ibv_comp_channel); O(ibv_comp_channel, context); O(ibv_comp_channel, fd); O(ibv_comp_channel, refcnt);
    S(ibv_cq); O(ibv_cq, context); O(ibv_cq, channel); O(ibv_cq, cq_context); O(ibv_cq, handle); O(ibv_cq, cqe);
    S(ibv_qp); O(ibv_qp, context); O(ibv_qp, qp_context); O(ibv_qp, pd); O(ibv_qp, send_cq); O(ibv_qp, recv_cq);
    O(ibv_qp, srq); O(ibv_qp, handle); O(ibv_qp, qp_num); O(ibv_qp, state); O(ibv_qp, qp_type);
    S(ibv_qp_cap); O(ibv_qp_cap, max_send_wr); O(ibv_qp_cap, max_recv_wr); O(ibv_qp_cap, max_send_sge);
    O(ibv_qp_cap, max_recv_sge); O(ibv_qp_cap, max_inline_data);
    S(ibv_qp_attr); O(ibv_qp_attr, qp_state); O(ibv_qp_attr, min_rnr_timer); O(ibv_qp_attr, timeout);
    O(ibv_qp_attr, retry_cnt); O(ibv_qp_attr, rnr_retry);
    S(ibv_qp_init_attr); O(ibv_qp_init_attr, qp_context); O(ibv_qp_init_attr, send_cq); O(ibv_qp_init_attr, recv_cq);
    O(ibv_qp_init_attr, srq); O(ibv_qp_init_attr, cap); O(ibv_qp_init_attr, qp_type); O(ibv_qp_init_attr, sq_sig_all);
    S(ibv_sge); O(ibv_sge, addr); O(ibv_sge, length); O(ibv_sge, lkey);
    S(ibv_send_wr); O(ibv_send_wr, wr_id); O(ibv_send_wr, next); O(ibv_send_wr, sg_list); O(ibv_send_wr, num_sge);
    O(ibv_send_wr, opcode); O(ibv_send_wr, send_flags); O(ibv_send_wr, imm_data); O(ibv_send_wr, wr.rdma.remote_addr);
    O(ibv_send_wr, wr.rdma.rkey);
    S(ibv_recv_wr); O(ibv_recv_wr, wr_id); O(ibv_recv_wr, next); O(ibv_recv_wr, sg_list); O(ibv_recv_wr, num_sge);
    S(ibv_wc); O(ibv_wc, wr_id); O(ibv_wc, status); O(ibv_wc, opcode); O(ibv_wc, vendor_err); O(ibv_wc, byte_len);
    O(ibv_wc, imm_data); O(ibv_wc, qp_num); O(ibv_wc, src_qp); O(ibv_wc, wc_flags);
    S(ibv_async_event); O(ibv_async_event, element); O(ibv_async_event, event_type);
    S(rdma_event_channel); O(rdma_event_channel, fd);
    S(rdma_cm_id); O(rdma_cm_id, verbs); O(rdma_cm_id, channel); O(rdma_cm_id, context); O(rdma_cm_id, qp);
    O(rdma_cm_id, route); O(rdma_cm_id, route.addr.src_addr); O(rdma_cm_id, route.addr.dst_addr);
    O(rdma_cm_id, ps); O(rdma_cm_id, port_num); O(rdma_cm_id, event); O(rdma_cm_id, send_cq_channel);
    O(rdma_cm_id, recv_cq_channel); O(rdma_cm_id, send_cq); O(rdma_cm_id, recv_cq); O(rdma_cm_id, srq);
    O(rdma_cm_id, pd); O(rdma_cm_id, qp_type);
    S(rdma_conn_param); O(rdma_conn_param, private_data); O(rdma_conn_param, private_data_len);
    O(rdma_conn_param, responder_resources); O(rdma_conn_param, initiator_depth); O(rdma_conn_param, flow_control);
    O(rdma_conn_param, retry_count); O(rdma_conn_param, rnr_retry_count); O(rdma_conn_param, srq);
    O(rdma_conn_param, qp_num);
    S(rdma_cm_event); O(rdma_cm_event, id); O(rdma_cm_event, listen_id); O(rdma_cm_event, event);
    O(rdma_cm_event, status); O(rdma_cm_event, param.conn.private_data); O(rdma_cm_event, param.conn.private_data_len);
    S(pollfd); O(pollfd, fd); O(pollfd, events); O(pollfd, revents);
    C(IBV_WC_SUCCESS); C(IBV_WC_LOC_LEN_ERR); C(IBV_WC_WR_FLUSH_ERR); C(IBV_WC_GENERAL_ERR);
    C(IBV_WC_SEND); C(IBV_WC_RDMA_WRITE); C(IBV_WC_RDMA_READ); C(IBV_WC_RECV); C(IBV_WC_RECV_RDMA_WITH_IMM);
    C(IBV_WC_WITH_IMM);
    C(IBV_WR_RDMA_WRITE); C(IBV_WR_RDMA_WRITE_WITH_IMM); C(IBV_WR_SEND); C(IBV_WR_SEND_WITH_IMM); C(IBV_WR_RDMA_READ); C(IBV_WR_ATOMIC_CMP_AND_SWP); C(IBV_WR_ATOMIC_FETCH_AND_ADD); C(IBV_ATOMIC_NONE);
    C(IBV_SEND_FENCE); C(IBV_SEND_SIGNALED); C(IBV_SEND_SOLICITED); C(IBV_SEND_INLINE);
    C(IBV_ACCESS_LOCAL_WRITE); C(IBV_ACCESS_REMOTE_WRITE); C(IBV_ACCESS_REMOTE_READ); C(IBV_ACCESS_REMOTE_ATOMIC);
    C(IBV_QPT_RC); C(IBV_QPS_ERR); C(IBV_QPS_RTS);
    C(IBV_QP_STATE); C(IBV_QP_TIMEOUT); C(IBV_QP_RETRY_CNT); C(IBV_QP_RNR_RETRY); C(IBV_QP_MIN_RNR_TIMER); C(IBV_PORT_ACTIVE); C(IBV_LINK_LAYER_ETHERNET); C(IBV_LINK_LAYER_INFINIBAND);
    C(RDMA_PS_TCP); C(RDMA_CM_EVENT_ADDR_RESOLVED); C(RDMA_CM_EVENT_ADDR_ERROR); C(RDMA_CM_EVENT_ROUTE_RESOLVED);
    C(RDMA_CM_EVENT_ROUTE_ERROR); C(RDMA_CM_EVENT_CONNECT_REQUEST); C(RDMA_CM_EVENT_CONNECT_RESPONSE);
    C(RDMA_CM_EVENT_CONNECT_ERROR); C(RDMA_CM_EVENT_UNREACHABLE); C(RDMA_CM_EVENT_REJECTED);
    C(RDMA_CM_EVENT_ESTABLISHED); C(RDMA_CM_EVENT_DISCONNECTED); C(RDMA_CM_EVENT_DEVICE_REMOVAL);
    C(RDMA_CM_EVENT_TIMEWAIT_EXIT); C(RDMA_CM_EVENT_ADDR_CHANGE);
    C(IBV_EVENT_CQ_ERR); C(IBV_EVENT_QP_FATAL); C(IBV_EVENT_QP_REQ_ERR); C(IBV_EVENT_QP_ACCESS_ERR);
    C(IBV_EVENT_PORT_ERR); C(IBV_EVENT_PORT_ACTIVE); C(IBV_EVENT_DEVICE_FATAL);
    C(AF_INET); C(AF_INET6); C(POLLIN);
    return 0;
}
