@file:JvmName("GuardHelpers")
@file:JvmMultifileClass

package ai.guard.server

import ai.guard.server.models.ConsentLike

/**
 * True when some record has exactly [purpose] (case-sensitive) and no `withdrawnAt`. A pure check
 * over records you already hold (contract 1.6.0's helper); for a decision that reflects a withdrawal
 * made a second ago, ask the server with [GuardClient.verifyConsent].
 */
public fun hasConsent(consents: Iterable<ConsentLike>, purpose: String): Boolean =
    consents.any { it.purpose == purpose && it.withdrawnAt == null }
