package ai.guard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.guard.server.http.HttpTransport;
import ai.guard.server.http.TransportRequest;
import ai.guard.server.http.TransportResponse;
import ai.guard.server.models.BannerConfigQuery;
import ai.guard.server.models.ConsentStatus;
import ai.guard.server.models.ConsentStatusQuery;
import ai.guard.server.models.CreateDsrRequestInput;
import ai.guard.server.models.DsrRequest;
import ai.guard.server.models.DsrTypes;
import ai.guard.server.models.OrgSummary;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The SDK as a Java 11 caller sees it: compiled with release 11, no Kotlin in sight. */
class JavaUsageTest {
  /** A transport is a one-method interface, so a lambda (or a class) is enough. */
  private static final class Scripted implements HttpTransport {
    final Deque<TransportResponse> answers = new ArrayDeque<>();
    final List<TransportRequest> requests = new ArrayList<>();

    Scripted answer(int status, String body) {
      answers.add(new TransportResponse(status, Map.of("x-request-id", List.of("req_java")), body.getBytes(StandardCharsets.UTF_8)));
      return this;
    }

    @Override
    public TransportResponse execute(TransportRequest request, Duration timeout) {
      requests.add(request);
      return answers.removeFirst();
    }
  }

  private static GuardClient client(HttpTransport transport) {
    return GuardClient.builder()
        .baseUrl("https://guard.example.com")
        .apiKey("gk_test_java")
        .transport(transport)
        .sleeper(duration -> {})
        .build();
  }

  @Test
  void buildCallAndCatch() {
    Scripted transport = new Scripted()
        .answer(200, "{\"orgId\":\"org_1\",\"name\":\"Acme\",\"slug\":\"acme\"}")
        .answer(201, "{\"accessToken\":\"tok_1\",\"expiresAt\":1,\"tokenType\":\"Bearer\"}")
        .answer(201, "{\"requestId\":\"dsr_1\",\"type\":\"erasure\",\"status\":\"pending\"}")
        .answer(404, "{\"code\":\"NOT_FOUND\",\"error\":\"no such consent\"}");
    try (GuardClient guard = client(transport)) {
      OrgSummary org = guard.getOrganization("acme");
      assertEquals("org_1", org.getOrgId());

      guard.brokerToken("user-42");
      DsrRequest dsr = guard.createDsrRequest(new CreateDsrRequestInput(org.getOrgId(), DsrTypes.ERASURE), "idem-1");
      assertEquals("pending", dsr.getStatus());
      assertNull(dsr.getDueAt());
      assertEquals("idem-1", transport.requests.get(2).getHeaders().get("Idempotency-Key"));

      try {
        guard.getConsent("cns_0000000001", RequestOptions.builder().timeoutMs(2_000).maxRetries(0).build());
        throw new AssertionError("expected a GuardApiError");
      } catch (GuardApiError e) {
        assertEquals(404, e.getStatus());
        assertEquals(GuardErrorCodes.NOT_FOUND, e.getCode());
        assertEquals("req_java", e.getRequestId());
        assertEquals("no such consent", e.getMessage());
      }
    }
  }

  @Test
  void lambdasOverloadsAndAsync() throws Exception {
    HttpTransport lambda = (request, timeout) -> new TransportResponse(
        200,
        Map.of(),
        "{\"principal\":{\"principalId\":\"dp_1\",\"externalId\":\"u-1\",\"email\":null},\"consents\":[{\"consentId\":\"cns_1\",\"noticeId\":\"ntc_1\",\"noticeVersion\":1,\"purpose\":\"Marketing\",\"status\":\"active\",\"givenAt\":1,\"withdrawnAt\":null}]}"
            .getBytes(StandardCharsets.UTF_8));
    try (GuardClient guard = client(lambda)) {
      CompletableFuture<ConsentStatus> future = guard.async(c -> c.getConsentStatus(ConsentStatusQuery.byExternalId("u-1")));
      ConsentStatus status = future.get();
      assertTrue(GuardHelpers.hasConsent(status.getConsents(), "Marketing"));
      assertFalse(GuardHelpers.hasConsent(status.getConsents(), "Analytics"));
    }
    GuardClient noKey = GuardClient.builder().baseUrl("https://guard.example.com").build();
    GuardMissingCredentialError missing = assertThrows(GuardMissingCredentialError.class, () -> noKey.listGateAlerts());
    assertEquals(GuardMissingCredentialError.CREDENTIAL_API_KEY, missing.getCredential());
    assertThrows(IllegalArgumentException.class, () -> RequestOptions.builder().header("Authorization", "Bearer x"));
    assertEquals("shop.example.in", BannerConfigQuery.domain("shop.example.in").getDomain());
  }

  @Test
  void helpersAreStaticMethods() {
    String secret = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
    String body = "{\"eventId\":\"evt_01HZX3K8Q2M4\",\"eventType\":\"consent.given\",\"organizationId\":\"org_abc123\",\"payload\":{\"consentId\":\"cns_7f3a\",\"purpose\":\"विपणन\",\"dataTypes\":[\"email\",\"phone\"]},\"timestamp\":1700000001000}";
    assertTrue(GuardHelpers.verifyWebhookSignature(secret, body, "a260ef21159df711c4bc019faa840d8a26cb71662986743e700c636afa938cb7"));
    assertFalse(GuardHelpers.verifyWebhookSignature(secret, body.getBytes(StandardCharsets.UTF_8), null));
    StandardWebhookVerification result = GuardHelpers.verifyStandardWebhook(
        secret,
        body,
        Map.of("webhook-id", "evt_01HZX3K8Q2M4", "webhook-timestamp", "1700000001", "webhook-signature", "v1,aNALbuB6yWtxldBxZDn8Spx9npIKcJVVtOygjhwawlY="),
        GuardHelpers.DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
        1700000302L);
    assertFalse(result.isValid());
    assertEquals(StandardWebhookFailure.TIMESTAMP_TOO_OLD, result.getReason());
    assertEquals("timestamp_too_old", result.getReason().getWireName());
    assertThrows(GuardWebhookSecretError.class, () -> GuardHelpers.verifyStandardWebhook("not a secret", body, Map.of()));

    AuditHashInput input = new AuditHashInput("org_abc123", "notice_v1", 1, "Marketing", List.of("phone", "email"), 1700000001000L, AuditSources.BROKERED);
    assertEquals("org_abc123|notice_v1|1|Marketing|email,phone|1700000001000|brokered", GuardHelpers.canonicalizeAuditEvent(input));
    assertEquals("fbff733e5abbc195f867f320b5d637e3e4f5a08f54de8f4cecaa723c62b79962", GuardHelpers.computeAuditHash("guard-audit-hash-test-secret-v1", input));
    assertTrue(GuardHelpers.validateAuditFields(input).isEmpty());
    assertEquals(Duration.ofMillis(500), RetryPolicy.backoff(1, 0.0));
  }
}
