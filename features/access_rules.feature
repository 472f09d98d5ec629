Feature: Who may do what
  The resource server lets everyone read under /api/, asks for a valid
  access token for everything else it handles, and leaves the documentation
  and static files open to all. Client credentials are for the token
  endpoint only.

  @spec @AUTH-1
  Scenario: Client credentials do not authenticate a write
    When the client's credentials are sent with HTTP Basic in a new event to the event list
    Then the request is refused as unauthenticated
    And no event with the name sent was created

  @spec @AUTH-1 @AUTH-2
  Scenario: Client credentials on a read count for nothing
    When a caller lists the events with the client's credentials in HTTP Basic
    Then the answer has status 200
    And the answer does not offer the link "create-new-event"

  @spec @AUTH-2
  Scenario Outline: Any GET under /api/ is open to everyone
    When a caller sends GET to "<path>" without a token
    Then the request is not refused for lack of authentication

    Examples:
      | path                      |
      | /api                      |
      | /api/events               |
      | /api/no-such-resource     |

  @spec @AUTH-3
  Scenario Outline: Any other method under /api/ needs a token
    When a caller sends <method> to "<path>" without a token
    Then the request is refused as unauthenticated

    Examples:
      | method | path                  |
      | POST   | /api/events           |
      | PUT    | /api/events/1         |
      | DELETE | /api/events/1         |
      | PATCH  | /api/events/1         |
      | POST   | /api/no-such-resource |
      | DELETE | /api                  |

  @ref @AUTH-3 @AUTH-7
  Scenario: The reference server answers 401 to a write without a token, even where nothing exists
    When a caller sends DELETE to "/api/no-such-resource" without a token
    Then the answer has status 401
    And the answer challenges the caller to authenticate with "Bearer"

  @ref @AUTH-4
  Scenario: Outside the API, the reference server asks for a token before saying what exists
    Given the user has a token
    When a caller sends GET to "/somewhere-else" without a token
    Then the answer has status 401
    When the user sends GET to "/somewhere-else" with the token
    Then the answer has status 404

  @spec @AUTH-5
  Scenario Outline: The favicon and the static locations are not behind the security filter
    When a caller sends GET to "<path>" with the Authorization header "Bearer not-a-real-token"
    Then the request is not refused for lack of authentication

    Examples:
      | path                  |
      | /favicon.ico          |
      | /css/site.css         |
      | /js/app.js            |
      | /images/logo.png      |
      | /webjars/lib/lib.js   |

  @ref @AUTH-5
  Scenario Outline: The reference server's documentation files are served whatever the Authorization header holds
    When a caller sends GET to "<path>" with the Authorization header "Bearer not-a-real-token"
    Then the answer has status 200

    Examples:
      | path             |
      | /docs/index.html |
      | /favicon.ico     |
      | /css/docs.css    |
