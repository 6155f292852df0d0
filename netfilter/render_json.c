#include "netfilter/render.h"

/* Every object carries family and table, as the libnftables schema wants. */
static json_t *obj_base(const struct nf_ruleset *rs)
{
	return json_pack("{s:s, s:s}", "family", "inet", "table", rs->table);
}

static json_t *addr_json(struct nf_prefix p)
{
	char b[IPV4_TEXT_MAX];

	ipv4_to_string(p.addr, b);
	if (p.len == 32)
		return json_string(b);
	return json_pack("{s:{s:s, s:i}}", "prefix", "addr", b, "len", (int)p.len);
}

static json_t *match(json_t *left, json_t *right, const char *op)
{
	if (!left || !right) {
		json_decref(left);
		json_decref(right);
		return NULL;
	}
	return json_pack("{s:{s:s, s:o, s:o}}", "match", "op", op, "left", left, "right", right);
}

static json_t *match_json(const struct nf_ruleset *rs, const struct nf_match *m)
{
	json_t *states;

	switch (m->kind) {
	case MATCH_IIF:
	case MATCH_OIF:
		return match(json_pack("{s:{s:s}}", "meta", "key", m->kind == MATCH_IIF ? "iif" : "oif"),
			     json_string(m->u.ifname), "==");
	case MATCH_L4PROTO:
		return match(json_pack("{s:{s:s}}", "meta", "key", "l4proto"),
			     json_string(nf_l4proto_name(m->u.l4proto)), "==");
	case MATCH_CT_STATE:
		states = json_array();
		if (m->u.ct_state_mask & NF_CT_INVALID) json_array_append_new(states, json_string("invalid"));
		if (m->u.ct_state_mask & NF_CT_ESTABLISHED) json_array_append_new(states, json_string("established"));
		if (m->u.ct_state_mask & NF_CT_RELATED) json_array_append_new(states, json_string("related"));
		if (m->u.ct_state_mask & NF_CT_NEW) json_array_append_new(states, json_string("new"));
		if (m->u.ct_state_mask & NF_CT_UNTRACKED) json_array_append_new(states, json_string("untracked"));
		return match(json_pack("{s:{s:s}}", "ct", "key", "state"), states, "in");
	case MATCH_IP_SADDR:
	case MATCH_IP_DADDR:
		return match(json_pack("{s:{s:s, s:s}}", "payload", "protocol", "ip", "field",
				       m->kind == MATCH_IP_SADDR ? "saddr" : "daddr"),
			     addr_json(m->u.prefix), "==");
	case MATCH_IP_DADDR_SET:
		return match(json_pack("{s:{s:s, s:s}}", "payload", "protocol", "ip", "field", "daddr"),
			     json_sprintf("@%s", rs->sets[m->u.set_index].name), "==");
	case MATCH_DPORT:
		return match(json_pack("{s:{s:s, s:s}}", "payload", "protocol",
				       nf_l4proto_name(m->u.dport.l4proto), "field", "dport"),
			     json_integer(m->u.dport.port), "==");
	case MATCH_CT_ORIG_DADDR:
		return match(json_pack("{s:{s:s, s:s}}", "ct", "key", "ip daddr", "dir", "original"),
			     addr_json(m->u.prefix), "==");
	case MATCH_CT_ORIG_DPORT:
		return match(json_pack("{s:{s:s, s:s}}", "ct", "key", "proto-dst", "dir", "original"),
			     json_integer(m->u.port), "==");
	case MATCH_SKUID:
	case MATCH_SKUID_NOT:
		return match(json_pack("{s:{s:s}}", "meta", "key", "skuid"), json_integer(m->u.uid),
			     m->kind == MATCH_SKUID ? "==" : "!=");
	case MATCH_DADDR_TCP_DPORT_SET:
		return match(json_pack("{s:[{s:{s:s, s:s}}, {s:{s:s, s:s}}]}", "concat",
				       "payload", "protocol", "ip", "field", "daddr",
				       "payload", "protocol", "tcp", "field", "dport"),
			     json_sprintf("@%s", rs->sets[m->u.set_index].name), "==");
	}
	return NULL;
}

static json_t *verdict_json(enum nf_verdict v)
{
	switch (v) {
	case NF_VERDICT_ACCEPT: return json_pack("{s:n}", "accept");
	case NF_VERDICT_DROP: return json_pack("{s:n}", "drop");
	case NF_VERDICT_REJECT_ADMIN:
		return json_pack("{s:{s:s, s:s}}", "reject", "type", "icmpx", "expr", "admin-prohibited");
	case NF_VERDICT_REJECT_RESET:
		return json_pack("{s:{s:s}}", "reject", "type", "tcp reset");
	case NF_VERDICT_LOG:
		break;  /* two statements: see rule_json */
	}
	return NULL;
}

/* "limit rate R/second burst B packets log group G snaplen S" */
static int append_log(json_t *expr)
{
	return json_array_append_new(expr, json_pack("{s:{s:i, s:i, s:s}}", "limit", "rate", NF_LOG_RATE,
						     "burst", NF_LOG_BURST, "per", "second")) ||
	       json_array_append_new(expr, json_pack("{s:{s:i, s:i}}", "log", "group", NF_LOG_GROUP,
						     "snaplen", NF_LOG_SNAPLEN));
}

static json_t *elem_json(struct ipv4_range r)
{
	char a[IPV4_TEXT_MAX], b[IPV4_TEXT_MAX];
	uint8_t len;

	if (ipv4_range_is_prefix(r, &len))
		return addr_json((struct nf_prefix){ r.first, len });
	return json_pack("{s:[s,s]}", "range", ipv4_to_string(r.first, a), ipv4_to_string(r.last, b));
}

/* Appends {"<cmd>": {"<kind>": body}}; steals body.  -1 when body is NULL. */
static int push(json_t *list, const char *cmd, const char *kind, json_t *body)
{
	if (!body)
		return -1;
	return json_array_append_new(list, json_pack("{s:{s:o}}", cmd, kind, body));
}

static json_t *set_json(const struct nf_ruleset *rs, const struct nf_set *s)
{
	json_t *o = obj_base(rs), *elems = json_array();

	for (size_t i = 0; i < s->n_elems && elems; i++)
		if (json_array_append_new(elems, elem_json(s->elems[i])))
			return json_decref(o), json_decref(elems), NULL;
	json_object_set_new(o, "name", json_string(s->name));
	if (s->dynamic) {  /* its definition only: the resolver adds the elements */
		json_decref(elems);
		json_object_set_new(o, "type", json_pack("[s, s]", "ipv4_addr", "inet_service"));
		json_object_set_new(o, "flags", json_pack("[s]", "timeout"));
		json_object_set_new(o, "timeout", json_integer(s->timeout_s));
		json_object_set_new(o, "size", json_integer(s->size));
		return o;
	}
	json_object_set_new(o, "type", json_string("ipv4_addr"));
	json_object_set_new(o, "flags", json_pack("[s]", "interval"));
	if (s->n_elems)
		json_object_set_new(o, "elem", elems);
	else
		json_decref(elems);
	return o;
}

static json_t *rule_json(const struct nf_ruleset *rs, const struct nf_chain *c, const struct nf_rule *r)
{
	json_t *o = obj_base(rs), *expr = json_array();

	json_object_set_new(o, "chain", json_string(c->name));
	for (size_t k = 0; k < r->n_matches; k++)
		if (json_array_append_new(expr, match_json(rs, &r->matches[k])))
			return json_decref(o), json_decref(expr), NULL;
	if (r->verdict == NF_VERDICT_LOG ? append_log(expr) :
	    json_array_append_new(expr, verdict_json(r->verdict)))
		return json_decref(o), json_decref(expr), NULL;
	json_object_set_new(o, "expr", expr);
	return o;
}

json_t *render_json(const struct nf_ruleset *rs)
{
	json_t *list = json_array();
	int rc = 0;

	rc |= json_array_append_new(list, json_pack("{s:{s:i}}", "metainfo", "json_schema_version", 1));
	/* add, delete, add: replaces any earlier copy of the table atomically. */
	rc |= push(list, "add", "table", json_pack("{s:s, s:s}", "family", "inet", "name", rs->table));
	rc |= push(list, "delete", "table", json_pack("{s:s, s:s}", "family", "inet", "name", rs->table));
	rc |= push(list, "add", "table", json_pack("{s:s, s:s}", "family", "inet", "name", rs->table));
	for (size_t i = 0; i < rs->n_sets; i++)
		rc |= push(list, "add", "set", set_json(rs, &rs->sets[i]));
	for (size_t i = 0; i < rs->n_chains; i++) {
		const struct nf_chain *c = &rs->chains[i];
		json_t *o = obj_base(rs);

		json_object_set_new(o, "name", json_string(c->name));
		json_object_set_new(o, "type", json_string("filter"));
		json_object_set_new(o, "hook", json_string(nf_hook_name(c->hook)));
		json_object_set_new(o, "prio", json_integer(c->priority));
		json_object_set_new(o, "policy", json_string(c->policy == NF_VERDICT_ACCEPT ? "accept" : "drop"));
		rc |= push(list, "add", "chain", o);
	}
	for (size_t i = 0; i < rs->n_chains; i++)
		for (size_t j = 0; j < rs->chains[i].n_rules; j++)
			rc |= push(list, "add", "rule", rule_json(rs, &rs->chains[i], &rs->chains[i].rules[j]));
	if (rc) {
		json_decref(list);
		return NULL;
	}
	return json_pack("{s:o}", "nftables", list);
}
