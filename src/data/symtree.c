// SPDX-License-Identifier: GPL-2.0-only
/*
 * A binary's symbols as perf 6.1 keeps them: a red-black tree ordered by start, built in the
 * order perf inserts (a symbol equal to a node goes to its right), with perf's end and duplicate
 * fix-ups and perf's lookup, which walks down from the root and takes the first symbol whose
 * range holds the address. Where symbols overlap (a sizeless _init stretched over the PLT, the
 * entries of a JIT's map file) the answer depends on the tree's shape, so the shape is perf's:
 * the classic insertion and deletion rebalancing, as the kernel's rbtree does them.
 *
 * Symbols live in dso->syms in insertion order; links are indexes + 1 (0: none).
 */
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "dso.h"

#define NIL 0

static struct data_symbol *node(struct data_dso *dso, __u32 i)
{
	return &dso->syms[i - 1];
}

static bool is_red(struct data_dso *dso, __u32 i)
{
	return i != NIL && !node(dso, i)->black;
}

/* Puts child where old was under parent (or at the root). */
static void replace_child(struct data_dso *dso, __u32 parent, __u32 old, __u32 child)
{
	if (parent == NIL)
		dso->root = child;
	else if (node(dso, parent)->left == old)
		node(dso, parent)->left = child;
	else
		node(dso, parent)->right = child;
	if (child != NIL)
		node(dso, child)->parent = parent;
}

/* x's right child takes x's place, x becomes its left child. */
static void rotate_left(struct data_dso *dso, __u32 x)
{
	__u32 y = node(dso, x)->right, inner = node(dso, y)->left;

	node(dso, x)->right = inner;
	if (inner != NIL)
		node(dso, inner)->parent = x;
	replace_child(dso, node(dso, x)->parent, x, y);
	node(dso, y)->left = x;
	node(dso, x)->parent = y;
}

static void rotate_right(struct data_dso *dso, __u32 x)
{
	__u32 y = node(dso, x)->left, inner = node(dso, y)->right;

	node(dso, x)->left = inner;
	if (inner != NIL)
		node(dso, inner)->parent = x;
	replace_child(dso, node(dso, x)->parent, x, y);
	node(dso, y)->right = x;
	node(dso, x)->parent = y;
}

static void insert_rebalance(struct data_dso *dso, __u32 n)
{
	for (;;) {
		__u32 parent = node(dso, n)->parent, grand, uncle;
		bool left;

		if (parent == NIL) {
			node(dso, n)->black = true;
			return;
		}
		if (node(dso, parent)->black)
			return;
		grand = node(dso, parent)->parent;
		left = node(dso, grand)->left == parent;
		uncle = left ? node(dso, grand)->right : node(dso, grand)->left;
		if (is_red(dso, uncle)) {
			node(dso, parent)->black = true;
			node(dso, uncle)->black = true;
			node(dso, grand)->black = false;
			n = grand;
			continue;
		}
		/* an inner grandchild first turns outer */
		if (left && node(dso, parent)->right == n) {
			rotate_left(dso, parent);
			n = parent;
			parent = node(dso, n)->parent;
		} else if (!left && node(dso, parent)->left == n) {
			rotate_right(dso, parent);
			n = parent;
			parent = node(dso, n)->parent;
		}
		node(dso, parent)->black = true;
		node(dso, grand)->black = false;
		if (left)
			rotate_right(dso, grand);
		else
			rotate_left(dso, grand);
		return;
	}
}

struct data_symbol *symtree_add(struct data_dso *dso, __u64 start, __u64 size, char *name,
				char binding)
{
	__u32 n, at = dso->root, parent = NIL;
	bool left = false;
	struct data_symbol *s;

	dso->syms = xgrow(dso->syms, dso->nr_syms, sizeof(*dso->syms));
	n = ++dso->nr_syms;
	while (at != NIL) {
		parent = at;
		left = start < node(dso, at)->start;
		at = left ? node(dso, at)->left : node(dso, at)->right;
	}
	s = node(dso, n);
	memset(s, 0, sizeof(*s));
	s->start = start;
	s->end = start + size;	/* perf: a sizeless symbol ends where it starts */
	s->name = name;
	s->binding = binding;
	s->seq = n - 1;
	s->parent = parent;
	if (parent == NIL)
		dso->root = n;
	else if (left)
		node(dso, parent)->left = n;
	else
		node(dso, parent)->right = n;
	insert_rebalance(dso, n);
	return s;
}

/* After a black node left from under parent (its child slot now holds NIL): restores balance. */
static void erase_rebalance(struct data_dso *dso, __u32 parent)
{
	__u32 n = NIL;

	while (parent != NIL) {
		bool left = node(dso, parent)->left == n;
		__u32 sib = left ? node(dso, parent)->right : node(dso, parent)->left;
		__u32 near, far;

		if (is_red(dso, sib)) {
			node(dso, sib)->black = true;
			node(dso, parent)->black = false;
			if (left)
				rotate_left(dso, parent);
			else
				rotate_right(dso, parent);
			sib = left ? node(dso, parent)->right : node(dso, parent)->left;
		}
		near = left ? node(dso, sib)->left : node(dso, sib)->right;
		far = left ? node(dso, sib)->right : node(dso, sib)->left;
		if (!is_red(dso, near) && !is_red(dso, far)) {
			node(dso, sib)->black = false;
			if (!node(dso, parent)->black) {
				node(dso, parent)->black = true;
				return;
			}
			n = parent;
			parent = node(dso, n)->parent;
			continue;
		}
		/* a red near nephew turns outer first (the colours below settle both) */
		if (!is_red(dso, far)) {
			if (left)
				rotate_right(dso, sib);
			else
				rotate_left(dso, sib);
			far = sib;
			sib = near;
		}
		node(dso, sib)->black = node(dso, parent)->black;
		node(dso, parent)->black = true;
		node(dso, far)->black = true;
		if (left)
			rotate_left(dso, parent);
		else
			rotate_right(dso, parent);
		return;
	}
}

static void erase(struct data_dso *dso, __u32 n)
{
	struct data_symbol *s = node(dso, n);
	__u32 parent = s->parent, child, rebalance = NIL;

	if (s->left == NIL || s->right == NIL) {
		child = s->left != NIL ? s->left : s->right;
		replace_child(dso, parent, n, child);
		/* a lone child is red under a black node: it takes the node's colour */
		if (child != NIL)
			node(dso, child)->black = s->black;
		else if (s->black)
			rebalance = parent;
	} else {
		/* the successor (leftmost of the right subtree) takes n's place and colour */
		__u32 succ = s->right, below, from;

		while (node(dso, succ)->left != NIL)
			succ = node(dso, succ)->left;
		below = node(dso, succ)->right;
		if (succ == s->right) {
			from = succ;
		} else {
			from = node(dso, succ)->parent;
			node(dso, from)->left = below;
			if (below != NIL)
				node(dso, below)->parent = from;
			node(dso, succ)->right = s->right;
			node(dso, s->right)->parent = succ;
		}
		node(dso, succ)->left = s->left;
		node(dso, s->left)->parent = succ;
		if (below != NIL)
			node(dso, below)->black = true;
		else if (node(dso, succ)->black)
			rebalance = from;
		node(dso, succ)->black = s->black;
		replace_child(dso, parent, n, succ);
	}
	free(s->name);
	s->name = NULL;
	s->erased = true;
	s->left = s->right = s->parent = NIL;
	if (rebalance != NIL)
		erase_rebalance(dso, rebalance);
}

static __u32 first(struct data_dso *dso)
{
	__u32 n = dso->root;

	while (n != NIL && node(dso, n)->left != NIL)
		n = node(dso, n)->left;
	return n;
}

static __u32 next(struct data_dso *dso, __u32 n)
{
	__u32 p;

	if (node(dso, n)->right != NIL) {
		n = node(dso, n)->right;
		while (node(dso, n)->left != NIL)
			n = node(dso, n)->left;
		return n;
	}
	while ((p = node(dso, n)->parent) != NIL && node(dso, p)->right == n)
		n = p;
	return p;
}

#define PAGE 4096ull

void symtree_fixup_end(struct data_dso *dso)
{
	__u32 prev = first(dso), cur;

	if (prev == NIL)
		return;
	for (cur = next(dso, prev); cur != NIL; prev = cur, cur = next(dso, cur))
		if (node(dso, prev)->end == node(dso, prev)->start)
			node(dso, prev)->end = node(dso, cur)->start;
	/* the last one, if sizeless, gets to the end of the page after its own */
	if (node(dso, prev)->end == node(dso, prev)->start)
		node(dso, prev)->end = (node(dso, prev)->start + PAGE - 1) / PAGE * PAGE + PAGE;
}

static int leading_underscores(const char *name)
{
	int n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

bool symbol_kept_over(const struct data_symbol *a, const struct data_symbol *b)
{
	bool a_sized = a->end != a->start, b_sized = b->end != b->start;
	int ua, ub;
	size_t la, lb;

	if (a_sized != b_sized)
		return a_sized;
	if ((a->binding == 'w') != (b->binding == 'w'))
		return b->binding == 'w';
	if ((a->binding == 'g') != (b->binding == 'g'))
		return a->binding == 'g';
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb;
	/* perf's x86 tie-break avoids the kernel's "SyS" syscall aliases */
	return strncmp(a->name, "SyS", 3) && strncmp(a->name, "compat_SyS", 10);
}

void symtree_fixup_duplicate(struct data_dso *dso)
{
	__u32 cur = first(dso), nxt;

	while (cur != NIL && (nxt = next(dso, cur)) != NIL) {
		if (node(dso, cur)->start != node(dso, nxt)->start) {
			cur = nxt;
		} else if (symbol_kept_over(node(dso, cur), node(dso, nxt))) {
			erase(dso, nxt);
		} else {
			erase(dso, cur);
			cur = nxt;
		}
	}
}

const struct data_symbol *symtree_find(const struct data_dso *dso, __u64 addr)
{
	__u32 n = dso->root;

	while (n != NIL) {
		const struct data_symbol *s = &dso->syms[n - 1];

		if (addr < s->start)
			n = s->left;
		else if (addr > s->end || (addr == s->end && addr != s->start))
			n = s->right;
		else
			return s;
	}
	return NULL;
}
