// Bounds.cs - range bounds in caller terms turned into the encoded bounds
// the library takes, one way for tables and indexes (issue 18).
using System;
using System.Collections.Generic;

namespace DryDB
{
    internal static class Bounds
    {
        /// <summary>lo and hi of a two-argument call: [lo, hi), the convention of
        /// every drydb language; a null key is an open end.</summary>
        internal static Bound Lower(Key lo) { return lo.IsNull ? Bound.Unbounded : Bound.Inclusive(lo); }
        internal static Bound Upper(Key hi) { return hi.IsNull ? Bound.Unbounded : Bound.Exclusive(hi); }

        /// <summary>The smallest byte string greater than every string that starts
        /// with p: p with its trailing 0xFF bytes dropped and its last byte
        /// incremented (engine.PrefixBounds); null when there is none.</summary>
        internal static byte[] Successor(byte[] p)
        {
            for (int i = p.Length - 1; i >= 0; i--)
            {
                if (p[i] == 0xFF) continue;
                var up = new byte[i + 1];
                Buffer.BlockCopy(p, 0, up, 0, i + 1);
                up[i]++;
                return up;
            }
            return null;
        }

        /// <summary>Both ends encoded for a key space of this kind. A tuple with
        /// fewer parts than the key (a prefix P) stands for every key starting with
        /// P at its end: lo inclusive from the first such key, lo exclusive after
        /// the last, hi inclusive through the last, hi exclusive before the first;
        /// the last two are P's successor, which the library takes as an inclusive
        /// lower and an exclusive upper bound (drydb.h). A range that can hold
        /// nothing (after a P with no successor) comes back as [P, P).</summary>
        internal static void Resolve(Bound lo, Bound hi, KeyKind kind, IReadOnlyList<KeyKind> parts, string what,
                                     out Bound l, out Bound h)
        {
            lo.Validate("lo"); hi.Validate("hi");
            byte[] empty = null;
            l = End(lo, false, kind, parts, what, ref empty);
            h = End(hi, true, kind, parts, what, ref empty);
            if (empty != null) { l = Bound.Inclusive(empty); h = Bound.Exclusive(empty); }
        }

        static Bound End(Bound b, bool upper, KeyKind kind, IReadOnlyList<KeyKind> parts, string what, ref byte[] empty)
        {
            if (b.Kind == BoundKind.Unbounded) return b;
            byte[] k = b.Typed.Encode(kind, parts, what);
            bool partial = kind == KeyKind.Composite && b.Typed.IsTuple && b.Typed.TupleLength < parts.Count;
            bool incl = b.Kind == BoundKind.Inclusive;
            if (!partial) return incl ? Bound.Inclusive(k) : Bound.Exclusive(k);
            if (upper && !incl) return Bound.Exclusive(k);      // before the first key with the prefix
            if (!upper && incl) return Bound.Inclusive(k);      // from the first
            byte[] succ = Successor(k);
            if (upper) return succ == null ? Bound.Unbounded : Bound.Exclusive(succ); // through the last
            if (succ == null) { empty = k; return Bound.Inclusive(k); }               // after the last: nothing
            return Bound.Inclusive(succ);
        }
    }
}
