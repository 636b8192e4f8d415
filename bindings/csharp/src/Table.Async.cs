// Table.Async.cs - the async twins of the reads (Task-returning, with a
// CancellationToken) and the helper that runs them.

using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace DryDB
{
    public sealed unsafe partial class Table
    {
        // ------------------------------------------------------------ async twins
        // drydb reads memory-mapped pages: calls are short and complete synchronously.
        // Failures are reported through the task, as an async method would.

        /// <summary>The value, or null if the key is absent. A token already
        /// cancelled gives a cancelled task (the call itself is too short to
        /// interrupt).</summary>
        public Task<byte[]> GetAsync(Key key, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => Get(key), cancellationToken); }
        public Task<byte[][]> GetManyAsync(IList<Key> keys, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => GetMany(keys), cancellationToken); }
        public Task<byte[][]> GetManyAsync(IList<byte[]> keys, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => GetMany(keys), cancellationToken); }
        public Task<long> CountAsync(CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => Count(), cancellationToken); }
        public Task<long> CountAsync(Bound lo, Bound hi, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => Count(lo, hi), cancellationToken); }
        /// <summary>[lo, hi), as <c>Count(Key, Key)</c>.</summary>
        public Task<long> CountAsync(Key lo, Key hi, CancellationToken cancellationToken = default(CancellationToken)) { return Async.Run(() => Count(lo, hi), cancellationToken); }
        /// <summary>The rows of the range, materialised in a list; the token is
        /// checked between rows, so a long range stops when it is cancelled.</summary>
        public Task<List<KeyValuePair<byte[], byte[]>>> RangeAsync(Bound lo, Bound hi, bool reverse = false, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Async.List(() => Range(lo, hi, reverse), cancellationToken);
        }
        /// <summary>[lo, hi), as <c>Range(Key, Key, bool)</c>.</summary>
        public Task<List<KeyValuePair<byte[], byte[]>>> RangeAsync(Key lo, Key hi, bool reverse = false, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Async.List(() => Range(lo, hi, reverse), cancellationToken);
        }
        public Task<List<KeyValuePair<byte[], byte[]>>> PrefixAsync(Key prefix, bool reverse = false, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Async.List(() => Prefix(prefix, reverse), cancellationToken);
        }
    }


    internal static class Async
    {
        // drydb calls are short and complete synchronously: the twins run them
        // at once and report through the task, as an async method would; a
        // cancelled token gives a cancelled task.
        internal static Task<T> Run<T>(Func<T> f, CancellationToken ct = default(CancellationToken))
        {
            var tcs = new TaskCompletionSource<T>();
            try
            {
                ct.ThrowIfCancellationRequested();
                tcs.SetResult(f());
            }
            catch (OperationCanceledException) when (ct.IsCancellationRequested) { tcs.SetCanceled(); }
            catch (Exception e) { tcs.SetException(e); }
            return tcs.Task;
        }

        // A walk materialised, the token checked before every row.
        internal static Task<List<T>> List<T>(Func<IEnumerable<T>> walk, CancellationToken ct)
        {
            return Run(() =>
            {
                var r = new List<T>();
                foreach (var x in walk())
                {
                    ct.ThrowIfCancellationRequested();
                    r.Add(x);
                }
                return r;
            }, ct);
        }
    }
}
