package ai.guard.server

import kotlinx.serialization.json.Json
import java.util.concurrent.CompletableFuture

/**
 * The one JSON configuration: unknown keys are ignored (the contract adds fields in minor releases),
 * a property equal to its default is not written (so an absent optional stays absent on the wire),
 * and a null the wire carries is written back as null.
 */
@get:JvmSynthetic
internal val GuardJson: Json = Json {
    ignoreUnknownKeys = true
    encodeDefaults = false
    explicitNulls = true
}

/**
 * A future whose `cancel(true)` interrupts the thread running its call, and only while it runs it:
 * the worker is registered and cleared under one lock, and any interrupt that lands after the call
 * returned is cleared before the thread goes back to its pool.
 */
internal class InterruptingFuture<T> : CompletableFuture<T>() {
    private val lock = Any()
    private var worker: Thread? = null

    fun run(call: () -> T) {
        synchronized(lock) {
            if (isDone) return
            worker = Thread.currentThread()
        }
        try {
            complete(call())
        } catch (e: Throwable) {
            completeExceptionally(e)
        } finally {
            synchronized(lock) {
                worker = null
                Thread.interrupted()
            }
        }
    }

    override fun cancel(mayInterruptIfRunning: Boolean): Boolean {
        val cancelled = super.cancel(mayInterruptIfRunning)
        if (cancelled && mayInterruptIfRunning) synchronized(lock) { worker?.interrupt() }
        return cancelled
    }
}
