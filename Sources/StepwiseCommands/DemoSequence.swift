/// The bundled onboarding example (`Fixtures/sequences/onboarding-flow.json`, the orch8
/// mobile example app's "User Onboarding" flow), embedded so `stepwise demo` works from any
/// directory. A test checks it is the same document as the fixture.
enum DemoSequence {
    /// Where the document lives in the repository.
    static let fixturePath = "Fixtures/sequences/onboarding-flow.json"

    /// The document's text.
    static let onboardingFlow = #"""
{
  "id": "00000000-0000-0000-0000-000000000001",
  "tenant_id": "mobile",
  "namespace": "default",
  "name": "onboarding-flow",
  "version": 1,
  "deprecated": false,
  "blocks": [
    {
      "type": "step",
      "id": "init_profile",
      "handler": "init_profile",
      "params": { "screen": "welcome" },
      "cancellable": true
    },
    {
      "type": "step",
      "id": "validate_email",
      "handler": "validate_email",
      "params": {},
      "cancellable": true
    },
    {
      "type": "step",
      "id": "show_terms",
      "handler": "show_terms",
      "params": { "document": "terms_of_service_v2" },
      "cancellable": true,
      "wait_for_input": {
        "prompt": "Please review and accept the Terms of Service to continue.",
        "timeout": 300000,
        "choices": [
          { "label": "Accept", "value": "accepted" },
          { "label": "Decline", "value": "declined" }
        ],
        "store_as": "terms_decision"
      }
    },
    {
      "type": "router",
      "id": "terms_gate",
      "routes": [
        {
          "condition": "context.data.terms_decision == 'declined'",
          "blocks": [
            {
              "type": "step",
              "id": "show_decline_notice",
              "handler": "show_banner",
              "params": {
                "title": "Terms Required",
                "message": "You must accept the Terms of Service to use this app. Please try again later.",
                "style": "warning"
              },
              "cancellable": true
            }
          ]
        }
      ],
      "default": [
        {
          "type": "step",
          "id": "collect_preferences",
          "handler": "collect_preferences",
          "params": { "categories": ["news", "sports", "tech", "entertainment"] },
          "cancellable": true,
          "wait_for_input": {
            "prompt": "Select your interests to personalize your experience.",
            "timeout": 600000,
            "store_as": "user_preferences"
          }
        },
        {
          "type": "step",
          "id": "setup_notifications",
          "handler": "setup_notifications",
          "params": {},
          "cancellable": true,
          "wait_for_input": {
            "prompt": "Would you like to enable push notifications?",
            "timeout": 120000,
            "choices": [
              { "label": "Enable", "value": "enabled" },
              { "label": "Skip", "value": "skipped" }
            ],
            "store_as": "notification_preference"
          }
        },
        {
          "type": "step",
          "id": "admin_approval",
          "handler": "request_approval",
          "params": { "reviewer": "admin", "reason": "new_user_onboarding" },
          "cancellable": true,
          "wait_for_input": {
            "prompt": "Your account is pending admin approval.",
            "timeout": 86400000,
            "choices": [
              { "label": "Approve", "value": "approved" },
              { "label": "Reject", "value": "rejected" }
            ],
            "store_as": "admin_decision"
          }
        },
        {
          "type": "router",
          "id": "approval_gate",
          "routes": [
            {
              "condition": "context.data.admin_decision == 'rejected'",
              "blocks": [
                {
                  "type": "step",
                  "id": "show_rejection_banner",
                  "handler": "show_banner",
                  "params": {
                    "title": "Account Not Approved",
                    "message": "Your account registration was not approved. Please contact support for assistance.",
                    "style": "error"
                  },
                  "cancellable": true
                }
              ]
            }
          ],
          "default": [
            {
              "type": "step",
              "id": "show_welcome_banner",
              "handler": "show_banner",
              "params": {
                "title": "Welcome!",
                "message": "Your account has been approved. Enjoy the full experience!",
                "style": "success"
              },
              "cancellable": true
            },
            {
              "type": "step",
              "id": "complete_onboarding",
              "handler": "complete_onboarding",
              "params": {},
              "cancellable": true
            }
          ]
        }
      ]
    }
  ],
  "created_at": "2026-05-17T00:00:00Z"
}
"""#
}
