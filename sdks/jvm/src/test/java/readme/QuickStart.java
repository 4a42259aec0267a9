package readme;

import ai.guard.server.GuardApiError;
import ai.guard.server.GuardClient;
import ai.guard.server.GuardErrorCodes;
import ai.guard.server.GuardHelpers;
import ai.guard.server.RequestOptions;
import ai.guard.server.models.ConsentStatus;
import ai.guard.server.models.ConsentStatusQuery;
import ai.guard.server.models.CreateDsrRequestInput;
import ai.guard.server.models.DsrRequest;
import ai.guard.server.models.DsrTypes;
import ai.guard.server.models.OrgSummary;
import java.util.concurrent.CompletableFuture;

public class QuickStart {
  public static void main(String[] args) throws Exception {
    try (GuardClient guard = GuardClient.builder()
        .baseUrl("https://guard.example.com")
        .apiKey(System.getenv("GUARD_API_KEY"))
        .build()) {
      OrgSummary org = guard.getOrganization("acme-health");

      guard.brokerToken("user-42", "asha@example.com");
      DsrRequest dsr = guard.createDsrRequest(new CreateDsrRequestInput(org.getOrgId(), DsrTypes.ERASURE));
      System.out.println("filed " + dsr.getRequestId());

      CompletableFuture<ConsentStatus> status = guard.async(c -> c.getConsentStatus(ConsentStatusQuery.byExternalId("user-42")));
      System.out.println("marketing: " + GuardHelpers.hasConsent(status.get().getConsents(), "Marketing"));

      try {
        guard.getConsent("cns_0000000000", RequestOptions.builder().timeoutMs(2_000).maxRetries(0).build());
      } catch (GuardApiError e) {
        if (!GuardErrorCodes.NOT_FOUND.equals(e.getCode())) throw e;
        System.out.println("no such consent (request " + e.getRequestId() + ")");
      }
    }
  }
}
